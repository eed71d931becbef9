using System.Globalization;
using System.Text;
using Microsoft.Diagnostics.Tracing;

namespace TailDb.Analyzer.Tests.Sources.Etw;

/// <summary>
/// A baseline that TraceEvent printed on Windows for one shared trace (shared/etl/README.md): the
/// `EVENT` lines (the first five of each event name, in trace order) and the `COUNT name:n` lines.
/// </summary>
internal sealed class EtwBaseline
{
    private EtwBaseline(IReadOnlyDictionary<string, long> counts, IReadOnlyDictionary<string, List<string>> events)
    {
        Counts = counts;
        Events = events;
    }

    public IReadOnlyDictionary<string, long> Counts { get; }

    /// <summary>Per event name, its printed lines in order.</summary>
    public IReadOnlyDictionary<string, List<string>> Events { get; }

    public const int EventsPerName = 5;

    public static EtwBaseline? For(string tracePath)
    {
        var name = System.IO.Path.GetFileName(tracePath);
        var stem = name.EndsWith(".etl.zip", StringComparison.Ordinal) ? name[..^".etl.zip".Length] : name[..^".etl".Length];
        var path = System.IO.Path.Combine(System.IO.Path.GetDirectoryName(tracePath)!, stem + ".baseline.txt");
        if (!File.Exists(path))
        {
            return null;
        }

        var counts = new Dictionary<string, long>(StringComparer.Ordinal);
        var events = new Dictionary<string, List<string>>(StringComparer.Ordinal);
        foreach (var line in File.ReadLines(path))
        {
            if (line.StartsWith("COUNT ", StringComparison.Ordinal))
            {
                var colon = line.LastIndexOf(':');
                counts[line[6..colon]] = long.Parse(line[(colon + 1)..], CultureInfo.InvariantCulture);
            }
            else if (line.StartsWith("EVENT ", StringComparison.Ordinal))
            {
                var name0 = NameOf(line);
                if (!events.TryGetValue(name0, out var list))
                {
                    events[name0] = list = [];
                }

                list.Add(line);
            }
        }

        return new EtwBaseline(counts, events);
    }

    /// <summary>"EVENT 1.000: Provider/Task/Opcode PID=..." -> "Provider/Task/Opcode".</summary>
    public static string NameOf(string eventLine)
    {
        var start = eventLine.IndexOf(": ", StringComparison.Ordinal) + 2;
        var end = eventLine.IndexOf(" PID=", start, StringComparison.Ordinal);
        return eventLine[start..end];
    }

    /// <summary>
    /// The events the baseline's maker skipped, skipped the same way: the "DotNet" provider, the CLR's
    /// private events decoded from a machine's manifest, the OS-decoded MSNT_SystemTrace events but two.
    /// </summary>
    public static bool Skipped(TraceEvent data)
    {
        if (data.ProviderName == "DotNet")
        {
            return true;
        }

        if (data.ProviderName == "Microsoft-Windows-DotNETRuntimePrivate")
        {
            return data.GetType().Name == "DynamicTraceEventData" || data.EventName.StartsWith("EventID", StringComparison.Ordinal);
        }

        return data.ProviderName == "MSNT_SystemTrace" && data.EventName is not ("SystemConfig/Platform" or "Image/KernelBase");
    }

    /// <summary>One event as the baseline prints it (GeneralParsing.Parse in PerfView's tests).</summary>
    public static string Format(TraceEvent data)
    {
        var sb = new StringBuilder();
        sb.Append("EVENT ").Append(FrameworkN3(data.TimeStampRelativeMSec)).Append(": ");
        sb.Append(data.ProviderName).Append('/').Append(data.EventName).Append(' ');
        sb.Append("PID=").Append(data.ProcessID).Append("; ");
        sb.Append("TID=").Append(data.ThreadID).Append("; ");
        sb.Append("PName=").Append(data.ProcessName).Append("; ");
        sb.Append("ProceNum=").Append(data.ProcessorNumber).Append("; ");
        sb.Append("DataLen=").Append(data.EventDataLength).Append("; ");
        var names = data.PayloadNames;
        for (var i = 0; i < names.Length; i++)
        {
            var value = data.PayloadValue(i);
            var text = value is DateTime time
                ? time.ToUniversalTime().ToString("yy/MM/dd HH:mm:ss.ffffff", CultureInfo.InvariantCulture)
                : data.PayloadString(i);
            if (text.Length > 20)
            {
                text = string.Concat(text.AsSpan(0, 20), "...");
            }

            text = text.Replace("\n", "\\n", StringComparison.Ordinal).Replace("\r", "\\r", StringComparison.Ordinal);
            sb.Append(names[i]).Append('=').Append(text).Append("; ");
        }

        return sb.ToString();
    }

    /// <summary>
    /// "n3" as .NET Framework printed it when the baselines were made: rounded to 15 significant digits
    /// first, then half away from zero (.NET Core rounds the exact binary value: 8185.7465 -> .746, not .747).
    /// </summary>
    public static string FrameworkN3(double value)
    {
        var fifteen = double.Parse(value.ToString("G15", CultureInfo.InvariantCulture), CultureInfo.InvariantCulture);
        return Math.Round((decimal)fifteen, 3, MidpointRounding.AwayFromZero).ToString("n3", CultureInfo.InvariantCulture);
    }

    /// <summary>
    /// Why TraceLog (which made the baselines) has no event where a single pass raises one, or null.
    /// TraceLog folds bookkeeping events into its process, thread, file, code-address and stack tables
    /// and drops idle samples (TraceLog.cs, bookKeepingEvent / removeFromStream).
    /// </summary>
    public static string? FoldedByTraceLog(TraceEvent data)
    {
        var name = data.ProviderName + "/" + data.EventName;
        return name switch
        {
            "Windows Kernel/Thread/DCStart" or "Windows Kernel/Thread/DCStop" => "thread rundown, kept in TraceLog's thread table",
            "Windows Kernel/FileIO/FileCreate" or "Windows Kernel/FileIO/FileDelete" or "Windows Kernel/FileIO/FileRundown" or "Windows Kernel/FileIO/Name"
                => "file names, kept in TraceLog's file table",
            "Microsoft-Windows-DotNETRuntime/Method/ILToNativeMap" or "Microsoft-Windows-DotNETRuntimeRundown/Method/ILToNativeMapDCStop"
                or "Microsoft-Windows-DotNETRuntime/Method/DCStopVerbose" or "Microsoft-Windows-DotNETRuntimeRundown/Method/DCStopVerbose"
                => "method ranges, kept in TraceLog's code addresses",
            "Microsoft-Windows-DotNETRuntime/ClrStack/Walk" or "Windows Kernel/StackWalk/Stack" or "Windows Kernel/StackWalk/StackKeyKernel"
                or "Windows Kernel/StackWalk/StackKeyUser" or "Windows Kernel/StackWalk/KeyDelete" or "Windows Kernel/StackWalk/KeyRundown"
                => "stacks, attached by TraceLog to the events they belong to",
            "Windows Kernel/PerfInfo/Sample" when data.ThreadID == 0 && !((Microsoft.Diagnostics.Tracing.Parsers.Kernel.SampledProfileTraceData)data).NonProcess
                => "idle-thread samples, dropped by TraceLog",
            "Microsoft-Windows-DotNETRuntime/Method/LoadVerbose" when data is Microsoft.Diagnostics.Tracing.Parsers.Clr.MethodLoadUnloadVerboseTraceData { IsDynamic: false, IsJitted: false }
                => "loads of precompiled methods, kept in TraceLog's code addresses",
            "Microsoft-Windows-DotNETRuntime/Method/UnloadVerbose" when !((Microsoft.Diagnostics.Tracing.Parsers.Clr.MethodLoadUnloadVerboseTraceData)data).IsJitted
                => "unloads of precompiled methods, kept in TraceLog's code addresses",
            _ => null,
        };
    }

    /// <summary>
    /// Why a count differs where the cause is outside the reader, or null: then it is the reader's miss.
    /// </summary>
    public static string? ExplainedCountDifference(string name)
    {
        if (name == "Windows Kernel/EventTrace/Opcode(80)")
        {
            return "an event of Windows 10's header buffer that ProcessTrace does not deliver";
        }

        if (name.StartsWith("MSNT_SystemTrace/", StringComparison.Ordinal)
            || (name.StartsWith("Windows Kernel/", StringComparison.Ordinal) && name.Contains("/Opcode(", StringComparison.Ordinal)))
        {
            return "a kernel event TraceEvent has no parser for; Windows decoded it with the OS's own MOF schema (TDH), which only Windows has";
        }

        if (name.StartsWith("solar_system/", StringComparison.Ordinal) || name.StartsWith("Provider(", StringComparison.Ordinal))
        {
            return "a TraceLogging (self-describing) event: TraceEvent decodes its schema only through Windows' TDH";
        }

        return null;
    }

    /// <summary>The line without its PName field: TraceLog names processes from its own process table, which a single pass does not keep.</summary>
    public static string WithoutProcessName(string line)
    {
        var start = line.IndexOf("PName=", StringComparison.Ordinal);
        if (start < 0)
        {
            return line;
        }

        var end = line.IndexOf("; ", start, StringComparison.Ordinal);
        return string.Concat(line.AsSpan(0, start), line.AsSpan(end + 2));
    }
}
