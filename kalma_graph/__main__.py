"""`python -m kalma_graph`: the `kalma-graph` command."""

from kalma_graph.cli.main import main

if __name__ == "__main__":
    main()
