using TailDb.Analyzer.Attribution;
using TailDb.Analyzer.Buckets;
using TailDb.Analyzer.Causes;
using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Reports;
using TailDb.Analyzer.Sources;
using TailDb.Analyzer.Stacks;

namespace TailDb.Analyzer.Findings;

/// <summary>One cause's part of the slow set, as `slowest` measures it.</summary>
/// <param name="SlowShare">Fraction of the slow set's time (ms causes) or events per slow request.</param>
/// <param name="Lift">SlowShare / the rest's share; null when only the tail has it.</param>
public sealed record CauseFinding(string Cause, CauseKind Kind, bool InMilliseconds, double SlowShare, double? Lift, bool Measurement);

/// <summary>Does a payload field rise with latency (Pearson's r; slow mean against the rest's)?</summary>
public sealed record PayloadFinding(string Activity, string Field, double? Correlation, double SlowMean, double RestMean, string Finding);

/// <summary>
/// What `slowest TRACE` (its defaults, with the samples' stacks) finds, as figures a caller can
/// compare: the request percentiles on the report's basis, the verdict and the causes behind it.
/// </summary>
/// <param name="VerdictKind">The kind of cause the verdict names; null when nothing recorded explains the slow set.</param>
public sealed record TraceFinding(
    string Trace, string Activity, long Requests, double P50Ms, double P99Ms, double P999Ms, double SlowThresholdMs,
    string Verdict, string? VerdictCause, CauseKind? VerdictKind, double VerdictShare,
    IReadOnlyList<CauseFinding> Causes, IReadOnlyList<PayloadFinding> Payload)
{
    /// <summary>Share of the slow set's time inside GC pauses (every generation together).</summary>
    public double GcShare => Causes.Where(c => c.Kind == CauseKind.GcPause && c.InMilliseconds).Sum(c => c.SlowShare);
}

/// <summary>One bucket scheme's estimate of one percentile and its error against the exact value.</summary>
public sealed record BucketFinding(double Percentile, double ExactMs, string Scheme, int Buckets, double EstimateMs, double ErrorPercent);

/// <summary>
/// The analyzer's public figures for callers that compare traces (the load test's scenarios): the
/// same analyses `slowest` and `buckets` run, returned as data rather than written as a report.
/// </summary>
public static class TraceFindings
{
    /// <summary>`slowest TRACE` at its defaults (slowest 1%, the trace's own request activity); null
    /// with <paramref name="problem"/> (the one line `slowest` would print) when the trace cannot be analyzed.</summary>
    public static TraceFinding? TrySlowest(string tracePath, out string? problem)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(tracePath);
        problem = null;
        SlowestReport report;
        try
        {
            report = SlowestAnalysis.Run(new SlowestSettings(Path.GetFullPath(tracePath), RequestSelection.Default), StackReaders.Create(StackReaderKind.NetTrace));
        }
        catch (AnalyzerException e)
        {
            problem = e.Message;
            return null;
        }

        var requests = report.Population.Activities.OrderByDescending(a => a.Count).First();
        var causes = report.Causes.Select(c => new CauseFinding(c.Cause, c.Kind, c.Unit == CauseUnit.Milliseconds, c.SlowShare, c.Lift, c.Measurement)).ToList();
        var payload = report.Payload.Select(p => new PayloadFinding(p.Activity, p.Field, p.Correlation, p.SlowMean, p.RestMean, p.Finding)).ToList();
        var verdict = report.VerdictDetail;
        return new TraceFinding(
            report.Trace.File, requests.Name, report.Population.Requests, requests.P50Ms, requests.P99Ms, requests.P999Ms, report.Population.ThresholdMs,
            report.Verdict, verdict?.Cause, verdict?.Kind, verdict?.SlowShare ?? 0, causes, payload);
    }

    /// <summary>`buckets TRACE`: every percentile and scheme, exact beside estimate; null with
    /// <paramref name="problem"/> when the trace cannot be analyzed.</summary>
    public static IReadOnlyList<BucketFinding>? TryBuckets(string tracePath, out string? problem)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(tracePath);
        problem = null;
        BucketReport report;
        try
        {
            (report, _) = BucketReport.Read(Path.GetFullPath(tracePath), RequestSelection.Default);
        }
        catch (AnalyzerException e)
        {
            problem = e.Message;
            return null;
        }

        return [.. report.Rows.SelectMany(r => r.Estimates.Select(e => new BucketFinding(r.Percentile, r.ExactMs, e.Scheme, e.Buckets, e.EstimateMs, e.ErrorPercent)))];
    }
}
