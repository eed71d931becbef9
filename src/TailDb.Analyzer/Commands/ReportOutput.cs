namespace TailDb.Analyzer.Commands;

/// <summary>Where a report goes: stdout, or a file named by --output (written whole, or not at all).</summary>
internal static class ReportOutput
{
    public static void Write(FileInfo? output, Action<TextWriter> render)
    {
        ArgumentNullException.ThrowIfNull(render);
        if (output is null)
        {
            render(Console.Out);
            return;
        }

        try
        {
            using var writer = new StringWriter();
            render(writer);
            File.WriteAllText(output.FullName, writer.ToString());
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            throw new AnalyzerException(ExitCode.BadArguments, $"--output {output.FullName}: cannot write: {e.Message}", e);
        }

        Console.Error.WriteLine($"wrote {output.FullName}");
    }
}
