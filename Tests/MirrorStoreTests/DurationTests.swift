import MirrorStore
import Testing

@Suite("Duration in seconds and milliseconds")
struct DurationTests {
    @Test("seconds keep the fraction; milliseconds round toward zero and saturate")
    func units() {
        #expect(Duration.milliseconds(1500).seconds == 1.5)
        #expect(Duration.milliseconds(250).seconds == 0.25)
        #expect(Duration.seconds(5).milliseconds == 5000)
        #expect(Duration.microseconds(2999).milliseconds == 2)
        #expect(Duration.microseconds(-1500).milliseconds == -1)
        #expect(Duration.seconds(Int64.max).milliseconds == .max)
        #expect(Duration.seconds(Int64.min).milliseconds == .min)
    }
}
