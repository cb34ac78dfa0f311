import Testing
@testable import ChartSession

@Suite struct LineProtocolTests {
    func parse(_ text: String, precision: LineProtocolPrecision = .ns, maxLines: Int = LineProtocol.maxLines) throws -> [LineProtocolLine] {
        try LineProtocol.parse(Array(text.utf8), precision: precision, maxLines: maxLines)
    }

    /// The error `text` is refused with (nil when it parses).
    func fault(_ text: String, precision: LineProtocolPrecision = .ns, maxLines: Int = LineProtocol.maxLines) -> LineProtocolError? {
        fault(Array(text.utf8), precision: precision, maxLines: maxLines)
    }

    func fault(_ bytes: [UInt8], precision: LineProtocolPrecision = .ns, maxLines: Int = LineProtocol.maxLines) -> LineProtocolError? {
        do {
            _ = try LineProtocol.parse(bytes, precision: precision, maxLines: maxLines)
            return nil
        } catch {
            return error
        }
    }

    /// The one field value of a one-line body `m v=<value>`.
    func value(_ text: String) throws -> LineProtocolValue? {
        let lines = try parse("m v=\(text)")
        guard lines.count == 1, lines[0].fields.count == 1 else { return nil }
        return lines[0].fields[0].value
    }

    func float(_ text: String) throws -> Double? {
        guard case let .float(d)? = try value(text) else { return nil }
        return d
    }

    func tags(_ pairs: KeyValuePairs<String, String>) -> [LineProtocolTag] { pairs.map { LineProtocolTag(key: $0.key, value: $0.value) } }

    // MARK: Lines

    @Test func telegrafLines() throws {
        let body = """
            cpu,cpu=cpu0,host=web-01 usage_user=1.25,usage_system=0.5,usage_idle=98.0,usage_iowait=0.1,usage_irq=0i 1700000000000000000
            cpu,cpu=cpu1,host=web-01 usage_user=2.5,usage_system=0.25,usage_idle=97.0,usage_iowait=0,usage_irq=3i 1700000000000000000
            mem,host=web-01 used_percent=41.5,available=8123456789i,active=true 1700000000000000001
            cpu,cpu=cpu0,host=web-01 usage_user=1.5,usage_system=0.75,usage_idle=97.5,usage_iowait=0.25,usage_irq=1i 1700000010000000000

            """
        let lines = try parse(body)
        #expect(lines.count == 4)
        let first = lines[0]
        #expect(first.measurement == "cpu")
        #expect(first.tags == tags(["cpu": "cpu0", "host": "web-01"]))
        #expect(first.fields.map(\.key) == ["usage_user", "usage_system", "usage_idle", "usage_iowait", "usage_irq"])
        #expect(first.fields.map(\.value) == [.float(1.25), .float(0.5), .float(98), .float(0.1), .integer(0)])
        #expect(first.fields.map(\.value.number) == [1.25, 0.5, 98, 0.1, 0])
        #expect(first.timestampNanos == 1_700_000_000_000_000_000)
        #expect(first.lineNumber == 1)
        #expect(first.seriesKey.text == "cpu,cpu=cpu0,host=web-01")

        #expect(lines[1].seriesKey.text == "cpu,cpu=cpu1,host=web-01")
        #expect(lines[1].seriesKey != first.seriesKey)
        #expect(lines[1].fields[3] == LineProtocolField(key: "usage_iowait", value: .float(0)))
        #expect(lines[1].fields[4].value == .integer(3))

        #expect(lines[2].measurement == "mem" && lines[2].tags == tags(["host": "web-01"]))
        #expect(lines[2].fields.map(\.value) == [.float(41.5), .integer(8_123_456_789), .bool(true)])
        #expect(lines[2].timestampNanos == 1_700_000_000_000_000_001)

        // The same series again: the same key, sharing its storage.
        #expect(lines[3].seriesKey == first.seriesKey)
        #expect(lines[3].seriesKey.storage === first.seriesKey.storage)
        #expect(lines[3].fields.map(\.value) == [.float(1.5), .float(0.75), .float(97.5), .float(0.25), .integer(1)])
        #expect(lines[3].timestampNanos == 1_700_000_010_000_000_000)
        #expect(lines[3].lineNumber == 4)
    }

    @Test func manySeriesAndKeys() throws {
        // Enough distinct series and field keys to grow the lookup tables several times;
        // every other thousand lines writes the tags in another order.
        var body = ""
        for i in 0..<5000 {
            let tags = (i / 1000) % 2 == 0 ? "host=h\(i % 1000),k=v" : "k=v,host=h\(i % 1000)"
            body += "m,\(tags) f\(i % 300)=\(i)i,g=1 \(i)\n"
        }
        let lines = try parse(body)
        #expect(lines.count == 5000)
        for (i, line) in lines.enumerated() {
            #expect(line.seriesKey.text == "m,host=h\(i % 1000),k=v")
            #expect(line.fields == [LineProtocolField(key: "f\(i % 300)", value: .integer(Int64(i))), LineProtocolField(key: "g", value: .float(1))])
            #expect(line.timestampNanos == Int64(i))
        }
        #expect(lines[17].seriesKey.storage === lines[1017].seriesKey.storage)
        #expect(lines[17].seriesKey.storage === lines[4017].seriesKey.storage)
        #expect(Set(lines.map(\.seriesKey)).count == 1000)
    }

    @Test func fieldKeysThatDifferFromThePreviousLine() throws {
        // The previous line's keys are tried first; a longer or shorter key, or one that
        // continues with an escape, must not be taken for them.
        let lines = try parse("m a=1,b=2\nm a=1,bb=2\nm ab=1,b=3\nm a\\=x=4,b=5\nm a=6")
        #expect(lines.map { $0.fields.map(\.key) } == [["a", "b"], ["a", "bb"], ["ab", "b"], ["a=x", "b"], ["a"]])
        #expect(lines.map { $0.fields.map(\.value) } == [
            [.float(1), .float(2)], [.float(1), .float(2)], [.float(1), .float(3)], [.float(4), .float(5)], [.float(6)],
        ])
    }

    // MARK: Values

    @Test func floats() throws {
        #expect(try value("1") == .float(1))
        #expect(try value("-1.5") == .float(-1.5))
        #expect(try value("1e3") == .float(1000))
        #expect(try value("1.5E-3") == .float(0.0015))
        #expect(try value(".5") == .float(0.5))
        #expect(try value("2.") == .float(2))
        #expect(try value("+2.5e+2") == .float(250))
        #expect(try value("007.50") == .float(7.5))
        #expect(try value("1e-400") == .float(0))  // underflow is zero, not an error
        #expect(try float("-0")?.sign == .minus)
        #expect(try float("0")?.sign == .plus)
        #expect(try float("-0.0e5")?.sign == .minus)
    }

    /// Every float must be the Double that `Double(String)` gives, bit for bit, on the
    /// fast path and off it.
    @Test func floatsRoundLikeDoubleFromString() throws {
        var cases = [
            "0.1", "0.2", "0.3", "1e-7", "123456789.123456789", "-0", "0.30000000000000004", "9007199254740993",
            "9007199254740992", "9007199254740993.0", "2.2250738585072014e-308", "4.9e-324", "5e-324", "1e22", "1e23",
            "1.7976931348623157e308", "123456789012345678901234567890", "0.000001234", "98.0", "1.25", "3.14159265358979323846",
            "1e-22", "1e-23", "8.98846567431158e307", "0.1e1", "100000000000000000000000", "4503599627370497.5",
            "1700000000.123456", "0.000000000000000000000000000001", "1234567890123456789", "12345678901234567890",
            "-98.765", "99999999999999999999.5", "2.5e-5",
        ]
        // Shortest round-trip texts of random doubles, and random decimal texts.
        var seed: UInt64 = 0x5EED
        func next() -> UInt64 { seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407; return seed >> 11 }
        for _ in 0..<3000 {
            let d = Double(bitPattern: next() << 11 | next() & 0x7FF)
            if d.isFinite { cases.append("\(d)") }
        }
        for _ in 0..<5000 {
            var s = next() % 3 == 0 ? "-" : ""
            s += String((next() % 10_000_000_000_000_000_000) >> (next() % 64))
            if next() % 4 != 0 {
                s += "." + String(repeating: "0", count: Int(next() % 4)) + String((next() % 1_000_000_000_000_000) >> (next() % 60))
            }
            if next() % 3 == 0 { s += "e\(Int(next() % 80) - 40)" }
            cases.append(s)
        }
        for text in cases {
            let expected = try #require(Double(text), "\(text)")
            let got = try float(text)
            #expect(got?.bitPattern == expected.bitPattern, "\(text): \(String(describing: got)) != \(expected)")
        }
    }

    @Test func integersUnsignedStringsAndBooleans() throws {
        #expect(try value("12i") == .integer(12))
        #expect(try value("-3i") == .integer(-3))
        #expect(try value("+4i") == .integer(4))
        #expect(try value("0i") == .integer(0))
        #expect(try value("9223372036854775807i") == .integer(.max))
        #expect(try value("-9223372036854775808i") == .integer(.min))
        #expect(try value("12u") == .unsigned(12))
        #expect(try value("0u") == .unsigned(0))
        #expect(try value("18446744073709551615u") == .unsigned(.max))
        #expect(try value("00018446744073709551615u") == .unsigned(.max))
        #expect(try value("\"\"") == .string(""))
        #expect(try value("\"a b,c=d e\"") == .string("a b,c=d e"))
        #expect(try value("\"héllo ✓\"") == .string("héllo ✓"))
        for t in ["t", "T", "true", "True", "TRUE"] { #expect(try value(t) == .bool(true), "\(t)") }
        for f in ["f", "F", "false", "False", "FALSE"] { #expect(try value(f) == .bool(false), "\(f)") }

        #expect(LineProtocolValue.integer(.max).number == 9_223_372_036_854_775_807.0)
        #expect(LineProtocolValue.unsigned(7).number == 7)
        #expect(LineProtocolValue.bool(true).number == 1 && LineProtocolValue.bool(false).number == 0)
        #expect(LineProtocolValue.string("1").number == nil)
        #expect(LineProtocolValue.float(-2.5).number == -2.5)
    }

    // MARK: Escapes

    @Test func escapes() throws {
        let line = try #require(try parse(#"my\ meas\,ure=x,ta\,g\=k\ ey=va\,l\=u\ e f\ \,\=k="say \"hi\" \\ back\slash" 7"#).first)
        #expect(line.measurement == "my meas,ure=x")
        #expect(line.tags == tags(["ta,g=k ey": "va,l=u e"]))
        #expect(line.fields == [LineProtocolField(key: "f ,=k", value: .string(#"say "hi" \ back\slash"#))])
        #expect(line.timestampNanos == 7)
        #expect(line.seriesKey.text == #"my\ meas\,ure=x,ta\,g\=k\ ey=va\,l\=u\ e"#)

        // A backslash before any other character is itself, in names and in strings.
        let literal = try #require(try parse(#"w\in,path=C:\dir\x,q=a\"b f\x=1,s="a\nb\q""#).first)
        #expect(literal.measurement == #"w\in"#)
        #expect(literal.tags == tags(["path": #"C:\dir\x"#, "q": #"a\"b"#]))
        #expect(literal.fields.map(\.key) == [#"f\x"#, "s"])
        #expect(literal.fields[1].value == .string(#"a\nb\q"#))
        // Telegraf writes a value `a\ b` as `a\\ b`: a literal backslash, then an escaped space.
        #expect(try parse(#"m,t=a\\ b f=1"#).first?.tags == tags(["t": #"a\ b"#]))
        // `=` needs no escape in a measurement, and a string may end in an escaped backslash.
        let unusual = try parse(#"a=b f="x\\""#)[0]
        #expect(unusual.measurement == "a=b" && unusual.fields[0].value == .string(#"x\"#))
    }

    /// Random lines written with every escape, parsed back to what was written.
    @Test func randomLinesRoundTrip() throws {
        var seed: UInt64 = 0xC0FFEE
        func next(_ n: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(seed >> 33) % n
        }
        let letters = ["a", "b", "Z", "_", "-", "1", ",", "=", " ", "\\", "\"", "é", "#", "✓"]
        func name(first: Bool = false) -> String {
            var s = ""
            repeat { s += letters[next(letters.count)] } while next(3) != 0
            if first && s.hasPrefix("#") { s = "m" + s }  // a line starting with # is a comment
            if s.hasSuffix("\\") { s += "x" }  // a name cannot end in a backslash
            return s
        }
        func escaped(_ s: String, _ specials: Set<Character>) -> String {
            String(s.flatMap { specials.contains($0) ? ["\\", $0] : [$0] })
        }
        var body = ""
        var expected: [(measurement: String, tags: [LineProtocolTag], fields: [LineProtocolField], time: Int64?)] = []
        for _ in 0..<400 {
            let measurement = name(first: true)
            var tagKeys = Set<String>(), tags: [LineProtocolTag] = []
            for _ in 0..<next(4) {
                let key = name()
                if tagKeys.insert(key).inserted { tags.append(LineProtocolTag(key: key, value: name())) }
            }
            var fieldKeys = Set<String>(), fields: [LineProtocolField] = [], written: [String] = []
            for _ in 0...next(4) {
                let key = name()
                guard fieldKeys.insert(key).inserted else { continue }
                let value: LineProtocolValue, text: String
                switch next(5) {
                case 0:
                    var d = Double(bitPattern: UInt64(next(1 << 30)) << 34 | UInt64(next(1 << 30)))
                    if !d.isFinite { d = 1.5 }
                    (value, text) = (.float(d), "\(d)")
                case 1:
                    let i = Int64(next(1 << 30)) << 33 &- Int64(next(1 << 30))
                    (value, text) = (.integer(i), "\(i)i")
                case 2:
                    let u = UInt64(next(1 << 30)) << 34 | UInt64(next(1 << 30))
                    (value, text) = (.unsigned(u), "\(u)u")
                case 3:
                    let str = next(4) == 0 ? "" : name()
                    (value, text) = (.string(str), "\"" + escaped(str, ["\"", "\\"]) + "\"")
                default:
                    let spellings = [("t", true), ("T", true), ("true", true), ("True", true), ("TRUE", true),
                                     ("f", false), ("F", false), ("false", false), ("False", false), ("FALSE", false)]
                    let (spelling, b) = spellings[next(spellings.count)]
                    (value, text) = (.bool(b), spelling)
                }
                fields.append(LineProtocolField(key: key, value: value))
                written.append(escaped(key, [",", "=", " "]) + "=" + text)
            }
            let time: Int64? = next(4) == 0 ? nil : Int64(next(1 << 30)) << 33 &- Int64(next(1 << 30))
            func gap() -> String { String(repeating: " ", count: 1 + next(3)) }
            var line = escaped(measurement, [",", " "])
            for tag in tags { line += "," + escaped(tag.key, [",", "=", " "]) + "=" + escaped(tag.value, [",", "=", " "]) }
            line += gap() + written.joined(separator: ",")
            if let time { line += gap() + "\(time)" }
            body += line + (next(2) == 0 ? "\n" : "\r\n")
            expected.append((measurement, tags, fields, time))
        }

        let lines = try LineProtocol.parse(Array(body.utf8))
        try #require(lines.count == expected.count)
        for (line, want) in zip(lines, expected) {
            let key = LineProtocolSeriesKey(measurement: want.measurement, tags: want.tags)
            #expect(line.measurement == want.measurement && line.seriesKey == key && line.tags == key.tags, "line \(line.lineNumber)")
            #expect(line.fields == want.fields, "line \(line.lineNumber)")
            #expect(line.timestampNanos == want.time, "line \(line.lineNumber)")
        }
    }

    // MARK: Series keys

    @Test func seriesKeyIgnoresTagOrder() throws {
        let lines = try parse("m,b=2,a=1,c=3 f=1\nm,c=3,a=1,b=2 f=2\nm,a=1,b=2,c=4 f=3\nn,a=1,b=2,c=3 f=4")
        #expect(lines[0].tags == tags(["a": "1", "b": "2", "c": "3"]))
        #expect(lines[1].tags == lines[0].tags)
        #expect(lines[0].seriesKey == lines[1].seriesKey)
        #expect(lines[0].seriesKey.hashValue == lines[1].seriesKey.hashValue)
        #expect(lines[0].seriesKey.storage === lines[1].seriesKey.storage)
        #expect(lines[0].seriesKey.text == "m,a=1,b=2,c=3")
        #expect(lines[2].seriesKey != lines[0].seriesKey)  // another tag value
        #expect(lines[3].seriesKey != lines[0].seriesKey)  // another measurement
        #expect(Set(lines.map(\.seriesKey)).count == 3)

        // Keys compare by value across parses and with keys built by hand.
        let again = try parse("m,c=3,b=2,a=1 g=1")[0].seriesKey
        let built = LineProtocolSeriesKey(measurement: "m", tags: tags(["c": "3", "a": "1", "b": "2"]))
        #expect(again == lines[0].seriesKey && built == again && built.hashValue == again.hashValue)
        #expect(built.tags.map(\.key) == ["a", "b", "c"])
        var mapping: [LineProtocolSeriesKey: Int] = [lines[0].seriesKey: 1]
        mapping[built, default: 0] += 1
        #expect(mapping.count == 1 && mapping[again] == 2)

        // Escaped names in another order are the same key too, hashed alike.
        let escaped = try parse(#"m\ x,b=y\ z,a=1 f=1"# + "\n" + #"m\ x,a=1,b=y\ z f=2"#)
        #expect(escaped[0].seriesKey.storage === escaped[1].seriesKey.storage)
        #expect(escaped[0].seriesKey.text == #"m\ x,a=1,b=y\ z"#)
        let escapedBuilt = LineProtocolSeriesKey(measurement: "m x", tags: tags(["b": "y z", "a": "1"]))
        #expect(escapedBuilt == escaped[1].seriesKey && escapedBuilt.hashValue == escaped[1].seriesKey.hashValue)

        // Names need not be ASCII.
        let accented = try parse("mé,hôst=wéb,a=ü f=1")[0]
        #expect(accented.measurement == "mé" && accented.tags == tags(["a": "ü", "hôst": "wéb"]))
        #expect(accented.seriesKey.text == "mé,a=ü,hôst=wéb")

        // The text escapes backslashes too, so these two do not collide.
        let a = LineProtocolSeriesKey(measurement: "m", tags: tags(["k": #"a\"#, "l": "b"]))
        let b = LineProtocolSeriesKey(measurement: "m", tags: tags(["k": "a,l=b"]))
        #expect(a != b && a.text == #"m,k=a\\,l=b"# && b.text == #"m,k=a\,l\=b"#)
    }

    @Test func duplicateFieldsLastWins() throws {
        let line = try #require(try parse("m a=1,b=2i,a=3,c=true,b=\"x\" 5").first)
        #expect(line.fields == [
            LineProtocolField(key: "a", value: .float(3)),
            LineProtocolField(key: "b", value: .string("x")),
            LineProtocolField(key: "c", value: .bool(true)),
        ])
        // Per line: the next line starts afresh.
        #expect(try parse("m a=1,a=2\nm a=3")[1].fields == [LineProtocolField(key: "a", value: .float(3))])
        // An escaped key too.
        #expect(try parse(#"m a\b=1,a\b=2"#)[0].fields == [LineProtocolField(key: #"a\b"#, value: .float(2))])
    }

    // MARK: Timestamps

    @Test func precisions() throws {
        let expected: [LineProtocolPrecision: Int64] = [
            .ns: 1_700_000_000, .us: 1_700_000_000_000, .ms: 1_700_000_000_000_000, .s: 1_700_000_000_000_000_000,
        ]
        for precision in LineProtocolPrecision.allCases {
            if let want = expected[precision] {
                #expect(try parse("m f=1 1700000000", precision: precision)[0].timestampNanos == want, "\(precision)")
            }
            #expect(try parse("m f=1 -2", precision: precision)[0].timestampNanos == -2 * precision.nanosPerUnit, "\(precision)")
            #expect(try parse("m f=1", precision: precision)[0].timestampNanos == nil)
        }
        #expect(try parse("m f=1 9223372036854775807")[0].timestampNanos == .max)
        #expect(try parse("m f=1 -9223372036854775808")[0].timestampNanos == .min)
        #expect(try parse("m f=1 0000000000000000000000012")[0].timestampNanos == 12)
        #expect(try parse("m f=1 9223372036", precision: .s)[0].timestampNanos == 9_223_372_036_000_000_000)

        let outOfRange = "is out of range: in nanoseconds it must fit a 64-bit signed integer (years 1677 to 2262)"
        #expect(fault("m f=1 9223372036854775808") == LineProtocolError(line: 1, column: 7, message: "timestamp \"9223372036854775808\" (ns) \(outOfRange)"))
        #expect(fault("m f=1 -9223372036854775809") != nil)
        #expect(fault("m f=1 99999999999999999999999") != nil)
        #expect(fault("m f=1 9223372037", precision: .s) == LineProtocolError(line: 1, column: 7, message: "timestamp \"9223372037\" (s) \(outOfRange)"))
        #expect(fault("m f=1 9223372036855", precision: .ms)?.column == 7)
        #expect(fault("m f=1 9223372036854776", precision: .us)?.column == 7)
        #expect(fault("m f=1 -9223372037", precision: .s) != nil)
        // InfluxDB 1.x's minutes and hours.
        #expect(try parse("m f=1 28333333", precision: .m)[0].timestampNanos == 1_699_999_980_000_000_000)
        #expect(try parse("m f=1 472222", precision: .h)[0].timestampNanos == 1_699_999_200_000_000_000)
        #expect(try parse("m f=1 2562047", precision: .h)[0].timestampNanos == 2_562_047 * 3_600_000_000_000)
        #expect(fault("m f=1 2562048", precision: .h) == LineProtocolError(line: 1, column: 7, message: "timestamp \"2562048\" (h) \(outOfRange)"))
    }

    @Test func spacesCommentsBlankLinesAndCRLF() throws {
        let body = "# a comment\n\n   # an indented comment\r\ncpu,host=a  f=1\r\n\r\n  cpu,host=a   f=2    5   \n   \ncpu,host=a f=3"
        let lines = try parse(body)
        #expect(lines.map(\.lineNumber) == [4, 6, 8])
        #expect(lines.map { $0.fields[0].value } == [.float(1), .float(2), .float(3)])
        #expect(lines.map(\.timestampNanos) == [nil, 5, nil])
        #expect(lines.allSatisfy { $0.seriesKey.text == "cpu,host=a" })
        #expect(try parse("").isEmpty)
        #expect(try parse("\n\n# only comments\n").isEmpty)
        // A `#` inside a line is not a comment.
        #expect(try parse("m s=\"#x\"")[0].fields[0].value == .string("#x"))
        #expect(fault("m f=1 # 1")?.column == 7)
    }

    // MARK: Errors

    @Test func errorsSayWhereAndWhat() {
        #expect(fault("cpu,host=a") == LineProtocolError(line: 1, column: 11, message:
            "no fields: after the measurement and tags \"cpu,host=a\" a space and at least one field (key=value) must follow"))
        #expect(fault("cpu   ")?.column == 7)
        #expect(fault("cpu f=1,")?.message == "a field (key=value) must follow ','")
        #expect(fault("cpu f=1, g=2")?.column == 9)
        #expect(fault("cpu f")?.message == "field \"f\" has no '=' and value")
        #expect(fault("cpu =1") == LineProtocolError(line: 1, column: 5, message: "a field key is empty"))
        #expect(fault("cpu f=") == LineProtocolError(line: 1, column: 7, message: "field \"f\" has no value after '='"))
        #expect(fault("cpu f= 1")?.column == 7)

        #expect(fault(",host=a f=1") == LineProtocolError(line: 1, column: 1, message: "the measurement name is empty"))
        #expect(fault("  ,host=a f=1")?.column == 3)
        #expect(fault("cpu,host f=1") == LineProtocolError(line: 1, column: 5, message: "tag \"host\" has no '=': tags are written key=value"))
        #expect(fault("cpu,host= f=1") == LineProtocolError(line: 1, column: 10, message: "tag \"host\" has an empty value"))
        #expect(fault("cpu,=a f=1") == LineProtocolError(line: 1, column: 5, message: "a tag key is empty"))
        #expect(fault("cpu, f=1")?.column == 5)
        #expect(fault("cpu,a=1, f=1")?.column == 9)
        #expect(fault("cpu,a=b=c f=1") == LineProtocolError(line: 1, column: 8, message: "tag \"a\" has an unescaped '=' in its value (write it as \\=)"))
        #expect(fault("cpu,b=1,a=2,b=3 f=1") == LineProtocolError(line: 1, column: 13, message: "tag \"b\" appears twice"))
        #expect(fault("cpu,a=1,a=2 f=1")?.column == 9)
        #expect(fault("cpu,a=,b f=1")?.column == 7)  // the first fault of the line

        #expect(fault("cpu usage=12x") == LineProtocolError(line: 1, column: 11, message:
            "field \"usage\" has value \"12x\": not a number (float 1.5, integer 12i, unsigned 12u, string \"…\", or boolean)"))
        for bad in ["1.2.3", "1e", "1e+", "-", "+", ".", "-.e1", "1_000", "0x10", "yes", "tru", "--1", "1ee3", "e5"] {
            let e = fault("m x=1,v=\(bad) 1")
            #expect(e?.column == 9 && e?.message.contains("not a number") == true, "\(bad): \(String(describing: e))")
        }
        let long = String(repeating: "9", count: 60) + "x"
        #expect(fault("m v=\(long)")?.message == "field \"v\" has value \"\(String(repeating: "9", count: 40))…\": not a number (float 1.5, integer 12i, unsigned 12u, string \"…\", or boolean)")

        for special in ["NaN", "nan", "-NaN", "inf", "+Inf", "-inf", "Infinity", "-INFINITY"] {
            #expect(fault("m v=\(special)") == LineProtocolError(line: 1, column: 5, message: "field \"v\" has value \"\(special)\": NaN and infinity are not allowed"))
        }
        #expect(fault("m v=1e400") == LineProtocolError(line: 1, column: 5, message: "field \"v\" has value \"1e400\": out of range of a 64-bit float (it would be infinity)"))
        #expect(fault("m v=-1.8e308")?.message.contains("out of range") == true)

        #expect(fault("m v=9223372036854775808i") == LineProtocolError(line: 1, column: 5, message:
            "field \"v\" has value \"9223372036854775808i\": does not fit in a 64-bit signed integer (-9223372036854775808i to 9223372036854775807i)"))
        #expect(fault("m v=-9223372036854775809i")?.column == 5)
        #expect(fault("m v=99999999999999999999999i")?.column == 5)
        #expect(fault("m v=18446744073709551616u")?.message == "field \"v\" has value \"18446744073709551616u\": does not fit in a 64-bit unsigned integer (at most 18446744073709551615u)")
        #expect(fault("m v=-1u")?.message == "field \"v\" has value \"-1u\": an unsigned integer cannot be negative")
        for bad in ["1.5i", "1e3i", "-i", "i2i", "12ii", "+1u", "1.0u", "u"] {
            let e = fault("m v=\(bad)")
            #expect(e?.column == 5 && e?.message.hasPrefix("field \"v\" has value \"\(bad)\": not ") == true, "\(bad): \(String(describing: e))")
        }

        #expect(fault("m s=\"abc") == LineProtocolError(line: 1, column: 5, message:
            "string field \"s\" has no closing '\"' on its line (a string may not span lines)"))
        #expect(fault("m s=\"abc\ndef\"") == LineProtocolError(line: 1, column: 5, message:
            "string field \"s\" has no closing '\"' on its line (a string may not span lines)"))
        #expect(fault("m s=\"ab\\\"")?.column == 5)  // the quote is escaped
        #expect(fault("m s=\"ab\"c") == LineProtocolError(line: 1, column: 9, message:
            "after the closing quote of string field \"s\" expected ',' or ' ', found \"c\""))

        #expect(fault("m v=1 123 456") == LineProtocolError(line: 1, column: 11, message: "unexpected \"456\" after the timestamp; a line ends with its timestamp"))
        #expect(fault("m v=1 12a") == LineProtocolError(line: 1, column: 7, message: "timestamp \"12a\" is not an integer"))
        #expect(fault("m v=1 1.7e18")?.column == 7)
        #expect(fault("m v=1 -")?.column == 7)
        #expect(fault("m v=1 w=2") == LineProtocolError(line: 1, column: 7, message:
            "timestamp \"w=2\" is not an integer (fields are separated by ',', not by spaces)"))
    }

    @Test func errorsNameTheirLine() {
        // Line 1 is cached by the time line 4 repeats its series: columns are still its own.
        let body = "cpu,host=a f=1 1\n# note\n\ncpu,host=a f=1x 2\n"
        #expect(fault(body) == LineProtocolError(line: 4, column: 14, message:
            "field \"f\" has value \"1x\": not a number (float 1.5, integer 12i, unsigned 12u, string \"…\", or boolean)"))
        #expect(fault("m f=1\r\nm f=2\r\nm f=\"x\r\n")?.line == 3)
        #expect(fault("m f=1\r\nm f=2\r\nm f=NaN\r\n") == LineProtocolError(line: 3, column: 5, message: "field \"f\" has value \"NaN\": NaN and infinity are not allowed"))
        let e = LineProtocolError(line: 2, column: 3, message: "x")
        #expect(e.description == "line 2, column 3: x")
    }

    @Test func invalidUTF8() {
        func bytes(_ prefix: String, _ bad: [UInt8], _ suffix: String) -> [UInt8] { Array(prefix.utf8) + bad + Array(suffix.utf8) }
        #expect(fault(bytes("", [0xFF], "m f=1")) == LineProtocolError(line: 1, column: 1, message: "the measurement name is not valid UTF-8"))
        #expect(fault(bytes("m,", [0xC3], "=v f=1"))?.message == "tag key \"\u{FFFD}\" is not valid UTF-8")
        #expect(fault(bytes("m,k=", [0xE2, 0x82], " f=1"))?.column == 5)
        #expect(fault(bytes("m ", [0x80], "=1"))?.column == 3)
        #expect(fault(bytes("m s=\"ok", [0xFE], "\"")) == LineProtocolError(line: 1, column: 6, message: "string field \"s\" is not valid UTF-8"))
        #expect(fault(bytes("m s=\"\\\"", [0xFE], "\""))?.column == 6)
    }

    @Test func tooManyLines() throws {
        let body = "m f=1\n# c\nm f=2\n\nm f=3\n"
        #expect(try parse(body, maxLines: 3).count == 3)
        #expect(fault(body, maxLines: 2) == LineProtocolError(line: 5, column: 1, message:
            "more than 2 lines in one body; split the write into smaller ones"))
        #expect(LineProtocol.maxLines == 1_000_000)
    }
}
