"""Issue 35: one CLI option registry (`kalma_graph/cli/options.py`): a flag that names a model, a store or a
run setting is defined once and means the same in every command."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from kalma_graph.cli.main import cli
from kalma_graph.cli.options import OPTIONS

# flags whose meaning is the command's own input or output (what it reads, writes or how much of it)
PER_COMMAND = {"--out", "--limit", "--n", "--pairs", "--question", "--questions", "--batch-size", "--kg-records",
               "--nli-file"}


def _options() -> list[tuple[str, click.Option]]:
    found = []

    def walk(command: click.Command, path: str) -> None:
        if isinstance(command, click.Group):
            for name, sub in command.commands.items():
                walk(sub, f"{path} {name}".strip())
            return
        found.extend((path, p) for p in command.params if isinstance(p, click.Option) and not p.hidden)

    walk(cli, "")
    return found


def _shape(option: click.Option) -> tuple:
    return (option.name, option.envvar, option.type.name, option.metavar)


@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_a_registry_flag_is_the_registry_option_in_every_command(name):
    spec = OPTIONS[name]
    uses = [(command, option) for command, option in _options() if spec.flags[0] in option.opts]
    assert uses, f"{spec.flags[0]} is in no command"
    wrong = [command for command, option in uses
             if (option.name, tuple(option.opts)) != (spec.dest, spec.flags) or option.envvar != spec.envvar
             or option.metavar != spec.metavar]
    assert not wrong, f"{spec.flags[0]} is defined by hand in: {', '.join(sorted(wrong))} (use cli.options.option)"


def test_a_flag_shared_by_commands_means_one_thing():
    by_flag: dict[str, set[tuple]] = {}
    for _, option in _options():
        for flag in option.opts:
            by_flag.setdefault(flag, set()).add(_shape(option))
    several = {flag for flag, shapes in by_flag.items() if len(shapes) > 1}
    assert several <= PER_COMMAND, f"defined differently in different commands: {sorted(several - PER_COMMAND)}"


@pytest.mark.parametrize("argv, new", [
    (["score", "--in", "x.jsonl", "--out", "o", "--judge", "llm"], "--attribution-judge"),
    (["nli", "eval", "--model", "m"], "--nli"),
    (["caqa", "bench", "s.jsonl", "--out", "o", "--evaluator", "cot-llm", "--llm", "m.gguf"], "--model"),
    (["experiment", "conscious", "--rounds", "0,1", "--questions", "q", "--gold", "g", "--out", "o"], "--removed"),
])
def test_a_renamed_flag_says_what_it_is_now(argv, new):
    result = CliRunner().invoke(cli, argv)
    assert result.exit_code == 2 and f"is now {new}" in result.output, result.output
