from kalma_graph.cli.main import main

main()
