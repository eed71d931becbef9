using System.Globalization;

namespace TailDb.Benchmarks.Compare.Reporting;

/// <summary>Human units for the table: times with three significant digits, bytes exactly.</summary>
public static class Units
{
    public static string Time(double nanoseconds)
    {
        if (double.IsNaN(nanoseconds))
        {
            return "n/a";
        }

        var (value, unit) = Math.Abs(nanoseconds) switch
        {
            < 1e3 => (nanoseconds, "ns"),
            < 1e6 => (nanoseconds / 1e3, "us"),
            < 1e9 => (nanoseconds / 1e6, "ms"),
            _ => (nanoseconds / 1e9, "s"),
        };
        return $"{ThreeDigits(value)} {unit}";
    }

    public static string Bytes(long? bytes) => bytes is null ? "? B" : $"{bytes.Value.ToString("N0", CultureInfo.InvariantCulture)} B";

    public static string Ratio(double ratio) => ratio.ToString("0.00", CultureInfo.InvariantCulture) + "x";

    public static string PValue(double p) =>
        p < 0.001 ? "p<0.001" : "p=" + p.ToString("0.000", CultureInfo.InvariantCulture);

    private static string ThreeDigits(double value) =>
        Math.Abs(value) switch
        {
            >= 100 => value.ToString("0", CultureInfo.InvariantCulture),
            >= 10 => value.ToString("0.0", CultureInfo.InvariantCulture),
            _ => value.ToString("0.00", CultureInfo.InvariantCulture),
        };
}
