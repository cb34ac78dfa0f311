/// How a viewer wants its frames.
public enum FrameFormat: String, CaseIterable, Sendable { case binary, json }

/// A viewer's canvas: CSS pixels and device pixel ratio.
public struct ViewerSize: Hashable, Sendable {
    public var width: Int
    public var height: Int
    public var dpr: Double
    public init(width: Int, height: Int, dpr: Double) { self.width = width; self.height = height; self.dpr = dpr }

    public static let maxSide = 16_384
    public static let dprRange: ClosedRange<Double> = 0.25...8
}

/// A message from the client, decoded and checked.
public enum ClientMessage: Equatable, Sendable {
    case hello(ViewerSize, format: FrameFormat, token: String?)
    case resize(ViewerSize)
    case pointer(PointerEvent)
    case wheel(WheelEvent)
    case doubleClick(DoubleClickEvent)
    /// The client drew a frame (one per frame, in order): flow control.
    case ack
    /// A controller changes the chart with a partial spec (as `PATCH`).
    case patch(JSONValue)

    public static let types = ["hello", "resize", "pointer", "wheel", "dblclick", "ack", "patch"]

    /// Decodes one message. Errors carry a protocol error code and the JSON path.
    public static func decode(_ json: JSONValue) throws(ProtocolError) -> ClientMessage {
        guard case .object = json else { throw ProtocolError(.badMessage, "a message must be a JSON object") }
        guard let type = json["type"]?.stringValue else {
            throw ProtocolError(.badMessage, "a message needs a string field \"type\"")
        }
        do {
            var r = JSONReader(json)
            _ = try r.string("type")
            let message: ClientMessage
            switch type {
            case "hello":
                let size = try readSize(&r)
                let format = try r.oneOf("format", FrameFormat.self) ?? .binary
                message = .hello(size, format: format, token: try r.string("token"))
            case "resize":
                message = .resize(try readSize(&r))
            case "pointer":
                let phase = try r.oneOf("phase", PointerEvent.Phase.self)
                guard let phase else { throw r.fail("field \"phase\" is required") }
                let (x, y) = try readPoint(&r)
                message = .pointer(PointerEvent(
                    phase: phase, x: x, y: y, button: try r.integer("button", min: -1, max: 31) ?? 0,
                    buttons: try r.integer("buttons", min: 0, max: 0xFFFF) ?? 0,
                    pointerId: try r.integer("pointerId", min: -(1 << 31), max: 1 << 31) ?? 1,
                    pointerType: try r.oneOf("pointerType", PointerEvent.PointerType.self) ?? .mouse,
                    shift: try r.bool("shift") ?? false, ctrl: try r.bool("ctrl") ?? false,
                    alt: try r.bool("alt") ?? false, time: try r.number("time") ?? 0))
            case "wheel":
                let (x, y) = try readPoint(&r)
                message = .wheel(WheelEvent(x: x, y: y, deltaX: try r.number("deltaX") ?? 0,
                                            deltaY: try r.number("deltaY") ?? 0, time: try r.number("time") ?? 0,
                                            shift: try r.bool("shift") ?? false, ctrl: try r.bool("ctrl") ?? false,
                                            alt: try r.bool("alt") ?? false))
            case "ack":
                message = .ack
            case "patch":
                guard try r.has("spec"), let spec = json["spec"], case .object = spec else {
                    throw r.fail("field \"spec\" (an object: the fields of the session's spec to change) is required")
                }
                message = .patch(spec)
            case "dblclick":
                let (x, y) = try readPoint(&r)
                message = .doubleClick(DoubleClickEvent(x: x, y: y, time: try r.number("time") ?? 0))
            default:
                throw ProtocolError(.unknownType, "unknown message type \"\(type)\"; expected one of \(types.joined(separator: ", "))")
            }
            try r.finish()
            return message
        } catch let e as JSONReadError {
            throw ProtocolError(.badField, e.description)
        } catch let e as ProtocolError {
            throw e
        } catch {
            throw ProtocolError(.badMessage, "\(error)")
        }
    }

    private static func readSize(_ r: inout JSONReader) throws -> ViewerSize {
        guard let w = try r.integer("width", min: 1, max: ViewerSize.maxSide) else { throw r.fail("field \"width\" is required") }
        guard let h = try r.integer("height", min: 1, max: ViewerSize.maxSide) else { throw r.fail("field \"height\" is required") }
        let dpr = try r.number("dpr", min: ViewerSize.dprRange.lowerBound, max: ViewerSize.dprRange.upperBound) ?? 1
        return ViewerSize(width: w, height: h, dpr: dpr)
    }

    private static func readPoint(_ r: inout JSONReader) throws -> (Double, Double) {
        guard let x = try r.number("x", min: -1e6, max: 1e6) else { throw r.fail("field \"x\" is required") }
        guard let y = try r.number("y", min: -1e6, max: 1e6) else { throw r.fail("field \"y\" is required") }
        return (x, y)
    }
}

/// Something the server refuses, as sent in `{"type":"error","code":...,"message":...}`.
public struct ProtocolError: Error, Equatable, CustomStringConvertible, Sendable {
    public enum Code: String, Sendable {
        /// Not valid JSON.
        case badJSON = "bad_json"
        /// Larger than the server accepts.
        case tooLarge = "too_large"
        /// Valid JSON but not a message (not an object, no type).
        case badMessage = "bad_message"
        case unknownType = "unknown_type"
        /// A field is missing, of the wrong type, out of range or unknown.
        case badField = "bad_field"
        /// A gesture or resize before `hello`.
        case helloRequired = "hello_required"
        /// An `ack` with no frame waiting for one.
        case unexpectedAck = "unexpected_ack"
        /// A binary message: clients send JSON text only.
        case unsupported = "unsupported"
        /// A `hello` without the token the session needs, or with one it does not know.
        case unauthorized = "unauthorized"
        /// A viewer-token viewer's gesture that would change the shared chart.
        case readOnly = "read_only"
        /// A patch that does not make a valid spec (nothing of it applied).
        case badPatch = "bad_patch"
        /// The session was removed (live control); the connection closes.
        case sessionRemoved = "session_removed"
        /// A change the server cannot log now (a cluster node without Redis); nothing of
        /// it was applied, retry later.
        case unavailable = "unavailable"
    }
    public let code: Code
    public let message: String
    public init(_ code: Code, _ message: String) { self.code = code; self.message = message }
    public var description: String { "\(code.rawValue): \(message)" }

    public var json: JSONValue {
        .object([("type", "error"), ("code", .string(code.rawValue)), ("message", .string(message))])
    }
}
