/// Who may watch a session and who may steer it. A viewer's `hello` carries a token;
/// controller tokens steer (their gestures change the shared chart), viewer tokens
/// watch (their own rollover or cursor still works, a gesture that would change the
/// chart gets a `read_only` error). Without a token a viewer gets the `anonymous`
/// role, or is refused when that is nil. Tokens are compared in constant time and
/// never written to logs or error messages.
public struct SessionAccess: Equatable, Sendable {
    public enum Role: String, CaseIterable, Sendable { case viewer, controller }

    public var viewerTokens: [String]
    public var controllerTokens: [String]
    /// The role of a viewer that sends no token (nil: it is refused).
    public var anonymous: Role?
    /// A file of tokens to add (spec `tokensFile`, read by the server at start-up).
    public var tokensFile: String?

    public init(viewerTokens: [String] = [], controllerTokens: [String] = [], anonymous: Role? = .controller, tokensFile: String? = nil) {
        self.viewerTokens = viewerTokens; self.controllerTokens = controllerTokens
        self.anonymous = anonymous; self.tokensFile = tokensFile
    }

    /// Everyone watches and steers (a session without `access`).
    public static let open = SessionAccess()

    public var isOpen: Bool { anonymous == .controller && viewerTokens.isEmpty && controllerTokens.isEmpty }

    /// Why a `hello` is refused.
    public enum Refusal: Error, Equatable, Sendable {
        case tokenRequired
        case unknownToken
        public var message: String {
            switch self {
            case .tokenRequired: return "this session needs a token: send it in hello's \"token\" field"
            case .unknownToken: return "the token is not one of this session's"
            }
        }
    }

    /// The role a `hello` with `token` gets.
    public func role(for token: String?) -> Result<Role, Refusal> {
        guard let token else { return anonymous.map { .success($0) } ?? .failure(.tokenRequired) }
        // Every token is compared, whatever matched before: the time taken says nothing.
        var controller = false, viewer = false
        for t in controllerTokens { controller = Self.same(t, token) || controller }
        for t in viewerTokens { viewer = Self.same(t, token) || viewer }
        if controller { return .success(.controller) }
        if viewer { return .success(.viewer) }
        return .failure(.unknownToken)
    }

    /// Equal strings, compared in time that depends only on their lengths.
    public static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var diff = UInt8(truncatingIfNeeded: x.count ^ y.count)
        for i in 0..<max(x.count, y.count) {
            diff |= (i < x.count ? x[i] : 0) ^ (i < y.count ? y[i] : 0)
        }
        return diff == 0 && x.count == y.count
    }

    /// Shortest and longest token accepted.
    public static let tokenLengths = 8...256
}
