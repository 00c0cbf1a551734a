"""The one root of kalma-graph's errors, and the exit code the command line gives each.

Every exception class the project defines derives from `KalmaError`, directly or through one of its
categories below, and keeps the built-in base its callers catch (`ValueError`, `RuntimeError`,
`FileNotFoundError`, ...): `class GoldError(BadInputError, ValueError)`. The CLI catches `KalmaError`
once (`kalma_graph.cli.common.main_errors`, wrapped round every command group): it prints
`error: <message>` on one line on stderr, without a traceback, and exits with the class's `exit_code`.

| exit | class | meaning |
|---|---|---|
| 1 | `KalmaError` | the command failed for a reason that is not its input: a tool or server it needs |
| 2 | `BadInputError` | bad input or state that the command cannot use as given; the message says what to change |
| 130 | `RunInterrupted` | stopped by Ctrl-C / SIGTERM after saving what was done; the same command resumes |

A tool or server it needs: java, Maven, a Neo4j server that does not start, a jar that does not match its
pin. Bad input or state: an option, an input file (`file:line: why`), a store, a model, or an output
directory left by another run.

Exits that are not errors of this table: 0 success; 1 when a check a command runs says no (`models verify`
on a mismatch, `answer` when a question failed); 2 for click's own usage errors (an unknown option, a bad
value). The `neo4j` and `models` command groups exit 1 on any error (their errors are about the server or the
model they manage; scripts and tests rely on it).

Not derived from `KalmaError`, on purpose: `pipeline.answer.AnswerInterrupted` is a `KeyboardInterrupt`
(an `Exception` would let `except Exception` swallow Ctrl-C), and `files.TornLineWarning` is a warning,
issued, never raised.
"""

from __future__ import annotations


class KalmaError(Exception):
    """The root of every kalma-graph error (exit 1: a failure that is not the command's input)."""

    exit_code: int = 1


class BadInputError(KalmaError):
    """Bad input or state (exit 2): an option, an input file, a store, a model or an earlier run's output
    the command cannot use as given; the message says what to change."""

    exit_code = 2


class RunInterrupted(KalmaError):
    """Stopped by Ctrl-C / SIGTERM after what was done was saved (exit 130); the same command resumes."""

    exit_code = 130


# exit code -> the category that carries it (the table above; tests/unit/test_errors.py checks it)
EXIT_CODES: dict[int, type[KalmaError]] = {1: KalmaError, 2: BadInputError, 130: RunInterrupted}
