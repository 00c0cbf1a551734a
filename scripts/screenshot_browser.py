#!/usr/bin/env python3
"""Screenshot an evaluation run in Neo4j Browser, styled with cypher/browse/style.grass.

Checks what `kalma-graph neo4j browse` prints by doing it in a headless Chromium: open the Browser
URL it prints, log in, run its `:style` command, its `:param` line and its query, and save a PNG.

Needs a running local server holding a run (`kalma-graph neo4j start`, `kalma-graph evaluate …
--store bolt://localhost:7687`), Debian's chromium (`apt-get install chromium`) and the `playwright`
package (`.venv/bin/pip install playwright`; its own browser download is not needed):

    .venv/bin/python scripts/screenshot_browser.py [RUN_ID] --out docs/img/neo4j-browser-run.png

Not part of the test suite (CI has no Chromium).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from pathlib import Path


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run_id", nargs="?", help="run to show (default: the latest, as `neo4j browse`)")
    parser.add_argument("--home", type=Path, default=None,
                        help="server home (default: $KALMA_NEO4J_HOME or the user data dir)")
    parser.add_argument("--store", default=None, help="Bolt URI of the runs (default: the local server of --home)")
    parser.add_argument("--out", type=Path, default=Path("docs/img/neo4j-browser-run.png"))
    parser.add_argument("--chromium", default=shutil.which("chromium") or shutil.which("chromium-browser"),
                        help="Chromium executable (default: `which chromium`)")
    parser.add_argument("--query", default=None, help="Cypher to run instead of the printed query (still with $run_id)")
    parser.add_argument("--width", type=int, default=1600)
    parser.add_argument("--height", type=int, default=1000)
    parser.add_argument("--scale", type=float, default=1.5, help="device pixel ratio of the PNG")
    parser.add_argument("--select", default="Answer",
                        help="label of the node to hover (its properties show in the side panel); '' for none")
    parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                        help="another :param before the query (e.g. question_id=biokalma-0907)")
    parser.add_argument("--settle", type=float, default=10.0, help="seconds to let the graph layout settle")
    parser.add_argument("--debug-dir", type=Path, default=None, help="also save a PNG after each step here")
    return parser.parse_args(argv)


def select_node(page, label: str) -> None:
    """Hover the first node of `label`: Browser lists its properties in the side panel."""
    from kalma_graph.store.browse import BROWSE_STYLE, browse_file

    colour = None
    for block in browse_file(BROWSE_STYLE).read_text(encoding="utf-8").split("}"):
        head, _, body = block.partition("{")
        if head.strip() == f"node.{label}":
            colour = next((line.split(":", 1)[1].strip(" ;").lower() for line in body.splitlines()
                           if line.strip().startswith("color:")), None)
    if not colour:
        return
    for node in page.locator("svg g.node").all():
        fill = (node.locator("circle.b-outline").first.get_attribute("fill") or "").lower()
        if fill == colour:
            node.locator("circle.b-outline").first.hover(force=True)
            return


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if not args.chromium:
        sys.exit("no chromium on PATH: apt-get install -y chromium (or pass --chromium)")
    from playwright.sync_api import sync_playwright

    from kalma_graph.neo4j_server import credentials_for
    from kalma_graph.store.browse import browse_info, cypher_string

    info = browse_info(args.run_id, args.home, args.store)
    if not info["open_url"]:
        sys.exit(f"no Browser URL for {info['store']}: {'; '.join(info['notes'])}")
    password = os.environ.get("KALMA_NEO4J_PASSWORD") or (credentials_for(info["store"]) or (None, None))[1]
    print(f"run {info['run_id']} in {info['store']}; Browser {info['open_url']}")

    step = 0

    def snap(page, name: str) -> None:
        nonlocal step
        if args.debug_dir:
            args.debug_dir.mkdir(parents=True, exist_ok=True)
            step += 1
            page.screenshot(path=str(args.debug_dir / f"{step:02d}-{name}.png"))

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=args.chromium, headless=True,
                                     args=["--no-sandbox", "--disable-dev-shm-usage"])
        page = browser.new_page(viewport={"width": args.width, "height": args.height},
                                device_scale_factor=args.scale)
        page.goto(info["open_url"], wait_until="domcontentloaded")
        page.wait_for_selector("[data-testid=connect]", timeout=60_000)
        if page.locator("[data-testid=username]").count():
            page.fill("[data-testid=username]", info["user"] or "neo4j")
        if password and page.locator("[data-testid=password]").count():
            page.fill("[data-testid=password]", password)
        snap(page, "login")
        page.click("[data-testid=connect]")
        page.wait_for_selector("[data-testid=connect]", state="detached", timeout=60_000)
        editor = page.locator("#monaco-main-editor, [data-testid=activeEditor]").first
        editor.wait_for(timeout=60_000)
        snap(page, "connected")

        def run(command: str, wait: float = 1.0) -> None:
            editor.click()
            page.keyboard.press("Control+A")
            page.keyboard.press("Delete")
            page.keyboard.insert_text(command)
            page.keyboard.press("Control+Enter")
            time.sleep(wait)

        run(":clear")
        run(info["style_command"])
        snap(page, "style")
        shown = page.locator("[data-testid=stream]").inner_text()
        if "node.Answer" not in shown or "{question}" not in shown:  # Browser echoes the style it now uses
            sys.exit("Browser did not take the :style command")
        run(":clear")
        run(info["params_command"])
        for item in args.param:
            name, _, value = item.partition("=")
            run(f":param {name} => {cypher_string(value)}")
        run(":clear")
        run(args.query or info["query"], wait=0.5)
        page.wait_for_selector("svg .node", timeout=60_000)
        page.locator("[data-testid=frame] button[title=Fullscreen]").first.click()
        time.sleep(args.settle)
        for _ in range(2):  # the force layout keeps spreading a little after the first fit
            page.locator("button[aria-label=zoom-to-fit]").first.click()
            time.sleep(1.5)
        page.locator("button[aria-label=zoom-out]").first.click()  # room for the side panel
        time.sleep(1.0)
        select_node(page, args.select)
        time.sleep(0.5)
        snap(page, "graph")
        args.out.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(args.out))
        browser.close()
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
