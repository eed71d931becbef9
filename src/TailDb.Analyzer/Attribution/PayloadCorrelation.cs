using TailDb.Analyzer.Computers;

namespace TailDb.Analyzer.Attribution;

/// <summary>
/// Does duration rise with a payload field? Streaming sums per (activity, field): Pearson's r
/// against duration, the mean in the slow set against the rest, and for 0/1 fields (hit, found)
/// how often each value occurs in the slow set. Hash fields are identities, not magnitudes: skipped.
/// </summary>
internal sealed class PayloadCorrelation
{
    private readonly Accumulator[,] _sums;
    private readonly List<ActivityInfo> _activities;

    /// <summary>String fields: per (activity, field), slow and rest counts per template id.</summary>
    private readonly Dictionary<(int Activity, int Field), Dictionary<int, (long Slow, long Others)>> _categories = [];

    public PayloadCorrelation(List<ActivityInfo> activities)
    {
        ArgumentNullException.ThrowIfNull(activities);
        _activities = activities;
        _sums = new Accumulator[activities.Count, 8];
    }

    public void Add(in RequestRecord request, double latencyMSec, bool slow)
    {
        var y = latencyMSec;
        var activity = _activities[request.Activity];
        for (var f = 0; f < activity.FieldNames.Count; f++)
        {
            if (!activity.TryGet(request, f, out var value))
            {
                continue;
            }

            if (activity.IsText(f))
            {
                AddCategory(request.Activity, f, activity.TemplateOf(f, value), slow);
                continue;
            }

            double x = value;
            ref var sum = ref _sums[request.Activity, f];
            sum.N++;
            sum.X += x;
            sum.Xx += x * x;
            sum.Y += y;
            sum.Yy += y * y;
            sum.Xy += x * y;
            sum.NotBinary |= x is not (0 or 1);
            if (slow)
            {
                sum.SlowN++;
                sum.SlowX += x;
            }
        }
    }

    public List<PayloadRow> Rows()
    {
        var rows = new List<PayloadRow>();
        for (var a = 0; a < _activities.Count; a++)
        {
            var activity = _activities[a];
            for (var f = 0; f < activity.FieldNames.Count; f++)
            {
                var name = activity.FieldNames[f];
                if (activity.IsText(f))
                {
                    if (CategoryRow(a, f) is { } row)
                    {
                        rows.Add(row);
                    }

                    continue;
                }

                var sum = _sums[a, f];
                if (sum.N == 0 || activity.Overflowed(f) || name.Contains("hash", StringComparison.OrdinalIgnoreCase))
                {
                    continue;
                }

                var restN = sum.N - sum.SlowN;
                var slowMean = sum.SlowN > 0 ? sum.SlowX / sum.SlowN : double.NaN;
                var restMean = restN > 0 ? (sum.X - sum.SlowX) / restN : double.NaN;
                var varX = (sum.N * sum.Xx) - (sum.X * sum.X);
                var varY = (sum.N * sum.Yy) - (sum.Y * sum.Y);
                double? r = varX > 0 && varY > 0 ? Math.Round(((sum.N * sum.Xy) - (sum.X * sum.Y)) / Math.Sqrt(varX * varY), 3) : null;
                var kind = sum.NotBinary ? "numeric" : "binary";
                string finding;
                if (sum.SlowN == 0)
                {
                    finding = "no slow request carries this field";
                }
                else if (!sum.NotBinary)
                {
                    finding = $"{name}=1 in {Percent(slowMean)} of slow requests vs {(double.IsNaN(restMean) ? "-" : Percent(restMean))} of the rest";
                    finding += Math.Abs(slowMean - (double.IsNaN(restMean) ? slowMean : restMean)) >= 0.2 ? " (a strong difference)" : "";
                }
                else
                {
                    var ratio = restMean != 0 && !double.IsNaN(restMean) ? slowMean / restMean : double.NaN;
                    finding = $"mean {slowMean:0.#} in slow requests vs {restMean:0.#} in the rest" +
                        (double.IsFinite(ratio) ? $" ({ratio:0.##}x)" : "") +
                        (r is { } rv ? $"; duration correlation r = {rv:0.00}" + (Math.Abs(rv) >= 0.3 ? " (duration rises with it)" : " (weak)") : "");
                }

                rows.Add(new PayloadRow(activity.Name, name, kind, sum.N, Population.Round(slowMean), Population.Round(restMean), r, finding));
            }
        }

        return rows;
    }

    private void AddCategory(int activity, int field, int template, bool slow)
    {
        if (!_categories.TryGetValue((activity, field), out var counts))
        {
            counts = [];
            _categories.Add((activity, field), counts);
        }

        var (s, r) = counts.GetValueOrDefault(template);
        counts[template] = slow ? (s + 1, r) : (s, r + 1);
    }

    /// <summary>
    /// The field's value (as its template: "/item/{n}") most over-represented in the slow set, among
    /// values at least 5% of the slow set carries (fewer are anecdotes, not a pattern).
    /// </summary>
    private PayloadRow? CategoryRow(int a, int f)
    {
        if (!_categories.TryGetValue((a, f), out var counts))
        {
            return null;
        }

        var activity = _activities[a];
        long slowN = counts.Values.Sum(c => c.Slow), restN = counts.Values.Sum(c => c.Others);
        var name = activity.FieldNames[f];
        if (slowN == 0)
        {
            return new PayloadRow(activity.Name, name, "categorical", slowN + restN, double.NaN, double.NaN, null, "no slow request carries this field");
        }

        var best = counts
            .Where(c => c.Value.Slow >= Math.Max(1, slowN * 0.05))
            .Select(c => (Template: c.Key, SlowShare: (double)c.Value.Slow / slowN, RestShare: restN > 0 ? (double)c.Value.Others / restN : 0))
            .OrderByDescending(c => c.RestShare > 0 ? c.SlowShare / c.RestShare : double.MaxValue)
            .ThenByDescending(c => c.SlowShare)
            .First();
        var lift = best.RestShare > 0 ? best.SlowShare / best.RestShare : double.PositiveInfinity;
        var value = activity.TextOf(f, best.Template);
        var finding = $"{name}={value} in {Percent(best.SlowShare)} of slow requests vs {Percent(best.RestShare)} of the rest" +
            (double.IsFinite(lift) ? $" ({lift:0.#}x)" : " (only in the slow set)") + $"; {counts.Count:N0} distinct value(s) by template";
        return new PayloadRow(activity.Name, name, "categorical", slowN + restN, Population.Round(best.SlowShare), Population.Round(best.RestShare), null, finding);
    }

    private static string Percent(double share) => (share * 100).ToString("0", System.Globalization.CultureInfo.InvariantCulture) + "%";

    private struct Accumulator
    {
        public long N;
        public long SlowN;
        public double X;
        public double Xx;
        public double Y;
        public double Yy;
        public double Xy;
        public double SlowX;
        public bool NotBinary;
    }
}
