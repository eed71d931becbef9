using TailDb.Analyzer.Causes;
using TailDb.Analyzer.Computers;
using TailDb.Analyzer.Scheduling;

namespace TailDb.Analyzer.Attribution;

/// <summary>
/// Measures, for one part of a request (its queue or its service), how much of it each cause
/// (<see cref="CauseRegistry"/>) covered, and counts the part's samples by the cause and the
/// thread's situation they stand for.
/// </summary>
internal sealed class Attributor
{
    private readonly List<ICause> _causes;
    private readonly SampleClassifier? _classifier;

    // The cause slot of each sample category's cause (-1 for none).
    private readonly int[] _sampleSlot = new int[Enum.GetValues<SampleCategory>().Length];

    // Each thread's request services, when requests carry their arrival: a sample in a request's queue
    // that falls inside one of them was taken while the thread served the request in front.
    private readonly EarlierRequestsCause? _services;

    public Attributor(ComputerSet set, SampleComputer? samples, SchedulerModel? scheduler = null)
    {
        ArgumentNullException.ThrowIfNull(set);
        var inputs = new CauseInputs(set, samples, scheduler);
        _classifier = inputs.Classifier;
        _causes = CauseRegistry.Build(inputs);
        Array.Fill(_sampleSlot, -1);
        for (var c = 0; c < _causes.Count; c++)
        {
            switch (_causes[c])
            {
                case SampleCause sample:
                    _sampleSlot[(int)sample.Category] = c;
                    break;
                case EarlierRequestsCause services:
                    _services = services;
                    break;
                case SafePointWaitCause wait:
                    SafePointHolders = wait.Holders;
                    break;
            }
        }
    }

    public IReadOnlyList<ICause> Causes => _causes;

    /// <summary>
    /// What the threads not serving requests were running in the ticks that waited past their usual
    /// wait for a safe point, by leaf frame, most often first: who held the process up.
    /// </summary>
    public IReadOnlyList<(string Frame, int Ticks)> SafePointHolders { get; } = [];

    /// <summary>The sampling interval a sample stands for (NaN without samples).</summary>
    public double SampleIntervalMSec => _classifier?.IntervalMSec ?? double.NaN;

    /// <summary>Writes each cause's overlap with one part of the request into <paramref name="values"/> (cleared first).</summary>
    public void Measure(in RequestRecord request, int requestIndex, RequestPart part, Span<double> values)
    {
        values.Clear();
        var (from, to) = Bounds(request, part);
        if (!(to > from))
        {
            return;
        }

        for (var c = 0; c < _causes.Count; c++)
        {
            values[c] = _causes[c].Measure(request, requestIndex, part, from, to);
        }
    }

    /// <summary>Both parts added: the whole response window.</summary>
    public void MeasureResponse(in RequestRecord request, int requestIndex, Span<double> values, Span<double> scratch)
    {
        Measure(request, requestIndex, RequestPart.Queue, values);
        Measure(request, requestIndex, RequestPart.Service, scratch);
        for (var c = 0; c < values.Length; c++)
        {
            values[c] += scratch[c];
        }
    }

    /// <summary>
    /// Whether the cause <paramref name="name"/> of <paramref name="kind"/> shows a thread held: it is measured by events, or it is
    /// samples of a stopped thread (waiting, a lock, file I/O). Samples of a running thread do not:
    /// a thread the OS preempted shows its app code tick after tick.
    /// </summary>
    public bool ShowsAThreadHeld(CauseKind kind, string name) =>
        kind is not (CauseKind.Samples or CauseKind.TracingSamples)
        || _causes.Exists(c => c is SampleCause && c.ShowsAThreadHeld && c.Name == name);

    /// <summary>The slot <see cref="CountSamples"/> counts samples that stand for no cause in (the sampler's own tick).</summary>
    public int NoCauseSlot => _causes.Count;

    /// <summary>
    /// Counts one part's samples by the cause each stands for (<see cref="NoCauseSlot"/> for none) and
    /// by the thread's situation at that moment (<see cref="SampleSituation"/>): serving a request (the
    /// request's own service, or in its queue the service of a request in front) or not, and running
    /// code or stopped (blocked, waiting, parked). <paramref name="counts"/> is
    /// <see cref="SampleSituations.Count"/> blocks of <see cref="NoCauseSlot"/> + 1; added to, not cleared.
    /// </summary>
    public void CountSamples(in RequestRecord request, RequestPart part, Span<int> counts)
    {
        var (from, to) = Bounds(request, part);
        if (_classifier is null || !(to > from) || !_classifier.Samples.TryGetThread(request.ThreadId, out var samples))
        {
            return;
        }

        var slots = NoCauseSlot + 1;
        Intervals.WindowIndex? services = null;
        _services?.TryGetThread(request.ThreadId, out services);
        var (first, end) = samples.Range(from, to);
        for (var i = first; i < end; i++)
        {
            var time = samples.Times[i];
            var category = samples.CategoryOf(i, _classifier.Samples);
            var cause = _classifier.CauseOf(category, time) is { } counted ? _sampleSlot[(int)counted] : -1;
            var serving = part == RequestPart.Service || (services is not null && services.Overlap(time - 1e-6, time + 1e-6) > 0);
            var situation = SampleSituations.Of(serving, SampleComputer.IsRunning(category));
            counts[((int)situation * slots) + (cause >= 0 ? cause : NoCauseSlot)]++;
        }
    }

    private static (double From, double To) Bounds(in RequestRecord request, RequestPart part) =>
        part == RequestPart.Queue ? (request.ArrivalMSec, request.StartMSec) : (request.StartMSec, request.StopMSec);
}
