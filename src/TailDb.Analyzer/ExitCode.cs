namespace TailDb.Analyzer;

/// <summary>Every way the analyzer ends; scripts branch on these.</summary>
internal enum ExitCode
{
    Success = 0,

    /// <summary>A bug: the exception was printed in full.</summary>
    UnexpectedError = 1,

    /// <summary>A flag or argument is wrong; the message names it.</summary>
    BadArguments = 2,

    /// <summary>The file is missing, empty, a directory, or not a readable trace.</summary>
    BadTrace = 3,

    /// <summary>The trace ended early; the report covers what was read and says so.</summary>
    TruncatedTrace = 4,

    /// <summary>The input or command needs another OS (no current input does: .etl is read on every OS).</summary>
    UnsupportedPlatform = 5,

    /// <summary>The recording could not be started or finished.</summary>
    RecordingFailed = 6,

    /// <summary>The trace holds no request of the chosen activities.</summary>
    NoRequests = 7,
}
