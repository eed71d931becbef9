using System.Globalization;
using TailDb.Analyzer.Computers;
using TailDb.Tracing;

namespace TailDb.Analyzer.Attribution;

/// <summary>What a request's latency is taken to be.</summary>
internal enum LatencyBasis
{
    /// <summary>Arrival to Stop (queue + service): what the client saw; the load test's corrected latency.</summary>
    Response,

    /// <summary>Start to Stop: all a trace can say when requests carry no arrival.</summary>
    Service,
}

/// <summary>--phase: a marked phase, every phase, or (the default) the measured one when the trace marks phases.</summary>
internal enum PhaseChoice
{
    Auto,
    All,
    Fill,
    Warmup,
    Measured,
}

/// <param name="FromSeconds">--from: seconds into the trace (overrides --phase).</param>
/// <param name="ToSeconds">--to: seconds into the trace.</param>
internal sealed record ScopeSettings(PhaseChoice Phase = PhaseChoice.Auto, double? FromSeconds = null, double? ToSeconds = null)
{
    public static ScopeSettings Default { get; } = new();
}

/// <summary>
/// The requests an analysis covers (those arriving in [From, To) in trace milliseconds) and the
/// latency it ranks them by. Resolved once per analysis, so the percentiles, the slow set and the
/// causes all speak of the same requests on the same clock.
/// </summary>
internal sealed record AnalysisScope(double FromMSec, double ToMSec, string RangeDescription, LatencyBasis Basis)
{
    public bool Contains(in RequestRecord request) => request.IsPaired && request.ArrivalMSec >= FromMSec && request.ArrivalMSec < ToMSec;

    public double Latency(in RequestRecord request) => Basis == LatencyBasis.Response ? request.ResponseMSec : request.DurationMSec;

    public string BasisDescription => Basis == LatencyBasis.Response
        ? "response time (arrival → stop: queue + service, as the load test's corrected latency)"
        : "service time (start → stop; the requests carry no arrival, so queueing before Start is not seen)";

    public static AnalysisScope Resolve(ScopeSettings settings, ComputerSet set)
    {
        ArgumentNullException.ThrowIfNull(settings);
        ArgumentNullException.ThrowIfNull(set);
        var basis = set.Requests.WithArrival ? LatencyBasis.Response : LatencyBasis.Service;
        if (settings.FromSeconds is not null || settings.ToSeconds is not null)
        {
            var from = (settings.FromSeconds ?? 0) * 1000;
            var to = settings.ToSeconds is { } seconds ? seconds * 1000 : double.PositiveInfinity;
            if (!(to > from))
            {
                throw new AnalyzerException(ExitCode.BadArguments, $"--to ({settings.ToSeconds}) must be later than --from ({settings.FromSeconds ?? 0})");
            }

            return new AnalysisScope(from, to, $"requests arriving from {Seconds(from)} to {(double.IsInfinity(to) ? "the end" : Seconds(to))} (--from/--to)", basis);
        }

        var phases = set.Phases.Phases;
        var wanted = settings.Phase switch
        {
            PhaseChoice.Auto when phases.Count > 0 => Phase.Measured,
            PhaseChoice.Fill => Phase.Fill,
            PhaseChoice.Warmup => Phase.Warmup,
            PhaseChoice.Measured => Phase.Measured,
            _ => (Phase?)null,
        };
        if (wanted is not { } phase)
        {
            var what = phases.Count > 0 ? "the whole trace, every phase (--phase all)" : "the whole trace (no phase markers)";
            return new AnalysisScope(double.NegativeInfinity, double.PositiveInfinity, what, basis);
        }

        foreach (var window in phases)
        {
            if (window.Phase == phase)
            {
                var how = settings.Phase == PhaseChoice.Auto ? "the default when the trace marks phases; --phase all for every request" : "--phase";
                if (set.Phases.SourceFile is { } file)
                {
                    how += $"; phases from {file}";
                }

                return new AnalysisScope(window.StartMSec, window.StopMSec,
                    $"the {Name(phase)} phase, {Seconds(window.StartMSec)} to {Seconds(window.StopMSec)} ({how})", basis);
            }
        }

        throw set.Facts.Lacking(ExitCode.BadArguments,
            $"--phase {Name(phase)}: the trace marks no such phase (it marks: {(phases.Count == 0 ? "none" : string.Join(", ", phases.Select(p => Name(p.Phase))))})");
    }

    public static string Name(Phase phase) => phase switch
    {
        Phase.Fill => "fill",
        Phase.Warmup => "warm-up",
        _ => "measured",
    };

    private static string Seconds(double msec) => (msec / 1000).ToString("0.000", CultureInfo.InvariantCulture) + " s";
}
