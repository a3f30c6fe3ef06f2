import Primitives
import TestSupport
import Testing

@Suite("Duration in seconds, milliseconds and nanoseconds", .endsWithin(.seconds(120)))
struct DurationTests {
    @Test("seconds keep the fraction; milliseconds and nanoseconds round toward zero and saturate")
    func units() {
        #expect(Duration.milliseconds(1500).seconds == 1.5)
        #expect(Duration.milliseconds(250).seconds == 0.25)
        #expect(Duration.seconds(5).milliseconds == 5000)
        #expect(Duration.microseconds(2999).milliseconds == 2)
        #expect(Duration.microseconds(-1500).milliseconds == -1)
        #expect(Duration.seconds(Int64.max).milliseconds == .max)
        #expect(Duration.seconds(Int64.min).milliseconds == .min)
        #expect(Duration.milliseconds(1500).nanoseconds == 1_500_000_000)
        #expect(Duration.microseconds(-3).nanoseconds == -3000)
        #expect(Duration.seconds(Int64.max / 1000).nanoseconds == .max)
        #expect(Duration.seconds(Int64.min / 1000).nanoseconds == .min)
    }
}
