import ChartWireServer

// wsserver: the ChartWire live-chart server (see README.md and docs/).
ChartServer.runCommandLine(Array(CommandLine.arguments.dropFirst()))
