#if canImport(Glibc)
import Glibc
#endif
import GeoDispatcher

exit(Dispatcher.main(Array(CommandLine.arguments.dropFirst())).rawValue)
