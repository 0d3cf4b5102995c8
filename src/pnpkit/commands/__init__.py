"""The command line: pnpkit's commands, watch and its preview server, the pack scaffold."""
