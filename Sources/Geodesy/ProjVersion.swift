import CProj

extension Earth {
    /// The version of the PROJ library geo runs on (its runtime `proj_info()`, not the headers it
    /// was built against), e.g. `9.1.1`: `geo --version` reports it.
    public static var projVersion: String {
        guard let version = proj_info().version else { return "unknown" }
        return String(cString: version)
    }
}
