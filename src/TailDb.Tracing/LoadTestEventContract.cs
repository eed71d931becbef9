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
/// request is sent by a load thread and answered on its connection's reader thread.</item>
/// <item>With a networked target, the client's own activities, each with an activity id of its own
/// in EventSource's activity-path format (so TraceEvent's and PerfView's StartStopActivityComputer
/// pair them across threads and nest them, with or without TplEventSource): the <c>Request</c>
/// starts on the load thread when it takes the request and stops where it ends (the reply on the
/// connection's reader thread, or the give-up on the timeout thread). Nested in it by
/// RelatedActivityId: <c>PoolWait</c> (every connection's pipeline was full: the wait for a slot),
/// <c>Attempt</c> (the first send, to its reply, timeout or lost connection) and <c>Retry</c> (from
/// the moment an attempt was given up, through the backoff and any pool wait, to the end of the
/// attempt it sent again). A request's retries are its Retry activities. The fan-out client writes
/// each request the same way, with one Attempt per Get, the shard in its <see cref="Fields.Connection"/>.</item>
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

        /// <summary>A networked request waited for a free pipeline slot in the client's pool.</summary>
        public const string PoolWait = "PoolWait";

        /// <summary>A networked request's first send, to its reply, timeout or lost connection.</summary>
        public const string Attempt = "Attempt";

        /// <summary>A networked request sent again: from the give-up of the attempt before, through the backoff, to this attempt's end.</summary>
        public const string Retry = "Retry";
    }

    public static class Fields
    {
        /// <summary>Stopwatch.GetTimestamp() of the moment the request was due (its arrival).</summary>
        public const string ArrivalTimestamp = "arrivalTimestamp";

        /// <summary>RequestStart: 0 read, 1 write, 2 delete. RequestStop: what it turned out to be (the load test's OpKind).</summary>
        public const string Kind = "kind";

        /// <summary>
        /// RequestStop: Stopwatch.GetTimestamp() of the moment the load test read the request's end, the
        /// end of the latency it records. The Stop event itself is stamped a microsecond or two later (the
        /// event is written after the clock read); with this field the analyzer's response time is the
        /// load test's latency to the tick, so a sub-millisecond p99 agrees too.
        /// </summary>
        public const string StopTimestamp = "stopTimestamp";

        /// <summary>RequestStop: the value bytes the request read or wrote (0 for a delete or a key not found), so the analyzer can correlate size with latency.</summary>
        public const string ValueBytes = "valueBytes";

        /// <summary>RequestSent/ReplyReceived, AttemptStart: the pooled connection's index; for the fan-out client's Attempts (one per Get), the shard the Get went to.</summary>
        public const string Connection = "connection";

        /// <summary>PhaseStart/PhaseStop: a <see cref="Phase"/> value.</summary>
        public const string Phase = "phase";

        /// <summary>PoolWaitStart, RetryStart: which attempt (0 the first send, n the n-th retry).</summary>
        public const string Attempt = "attempt";

        /// <summary>AttemptStop, RetryStop: an <see cref="AttemptOutcome"/> value.</summary>
        public const string Outcome = "outcome";
    }

    public static class EventIds
    {
        public const int RequestStart = 1;
        public const int RequestStop = 2;
        public const int PhaseStart = 3;
        public const int PhaseStop = 4;
        public const int RequestSent = 5;
        public const int ReplyReceived = 6;
        public const int PoolWaitStart = 7;
        public const int PoolWaitStop = 8;
        public const int AttemptStart = 9;
        public const int AttemptStop = 10;
        public const int RetryStart = 11;
        public const int RetryStop = 12;
    }
}

/// <summary>The load test's phases, as the Phase events' payload carries them.</summary>
public enum Phase
{
    Fill = 1,
    Warmup = 2,
    Measured = 3,
}

/// <summary>How one attempt of a networked request ended, as AttemptStop and RetryStop carry it.</summary>
public enum AttemptOutcome
{
    /// <summary>Its reply arrived (an error reply too: the server answered).</summary>
    Answered = 0,

    /// <summary>No reply within the client's timeout; the request is retried or, out of retries, failed.</summary>
    TimedOut = 1,

    /// <summary>Its connection was lost while it was in flight.</summary>
    ConnectionLost = 2,

    /// <summary>Never sent: the pool broke or stopped while it waited for a connection.</summary>
    NotSent = 3,
}
