namespace TailDb.Tracing;

/// <summary>
/// The load test's own events (src/TailDb.LoadTest's LoadTestEventSource): what makes its tail and
/// the analyzer's the same requests on the same clock.
/// <list type="bullet">
/// <item>A <c>Request</c> Start/Stop activity around every store call the open-loop schedule makes.
/// Its Start carries <see cref="Fields.ArrivalTimestamp"/>: the request's intended start as
/// <c>Stopwatch.GetTimestamp()</c>, the clock EventPipe stamps events with on every OS. The analyzer
/// takes [arrival, Stop] as the request's response time, split into queue (arrival → Start) and
/// service (Start → Stop): exactly what the load test's coordinated-omission-corrected latency
/// measures. The store's Get/Put/Delete nest inside it.</item>
/// <item>With a networked target (--target), <c>RequestSent</c> and <c>ReplyReceived</c> mark each
/// request's send and its reply (<see cref="Fields.ArrivalTimestamp"/> identifies the request,
/// <see cref="Fields.Connection"/> the pooled connection). They are marks, not an activity: a
/// request is sent by a load thread and answered on its connection's reader thread. The fan-out
/// client marks each of a request's N Gets this way, the shard in <see cref="Fields.Connection"/>.</item>
/// <item>A <c>Phase</c> Start/Stop activity per phase (<see cref="Phase"/>), so the analyzer can take
/// the measured phase alone.</item>
/// </list>
/// Any app can use the same convention: a Start payload field named <see cref="Fields.ArrivalTimestamp"/>
/// (or another name given to the analyzer's --arrival-field) holding a Stopwatch timestamp, anywhere
/// in the payload (the analyzer reads it by the event's metadata; docs/analyzer.md, "Apps we did not write").
/// </summary>
public static class LoadTestEventContract
{
    public const string ProviderName = "TailDb-LoadTest";

    public static class Activities
    {
        public const string Request = "Request";
        public const string Phase = "Phase";
    }

    public static class Fields
    {
        /// <summary>Stopwatch.GetTimestamp() of the moment the request was due (its arrival).</summary>
        public const string ArrivalTimestamp = "arrivalTimestamp";

        /// <summary>RequestStart: 0 read, 1 write, 2 delete. RequestStop: what it turned out to be (the load test's OpKind).</summary>
        public const string Kind = "kind";

        /// <summary>RequestStop: the value bytes the request read or wrote (0 for a delete or a key not found), so the analyzer can correlate size with latency.</summary>
        public const string ValueBytes = "valueBytes";

        /// <summary>RequestSent/ReplyReceived: the pooled connection's index; for the fan-out client, the shard the Get went to.</summary>
        public const string Connection = "connection";

        /// <summary>PhaseStart/PhaseStop: a <see cref="Phase"/> value.</summary>
        public const string Phase = "phase";
    }

    public static class EventIds
    {
        public const int RequestStart = 1;
        public const int RequestStop = 2;
        public const int PhaseStart = 3;
        public const int PhaseStop = 4;
        public const int RequestSent = 5;
        public const int ReplyReceived = 6;
    }
}

/// <summary>The load test's phases, as the Phase events' payload carries them.</summary>
public enum Phase
{
    Fill = 1,
    Warmup = 2,
    Measured = 3,
}
