namespace TailDb.Analyzer.Sources.Etw;

/// <summary>
/// Decompresses a compressed buffer's body: ETW's compressed logging (Windows 8 and later, buffer
/// flag 0x40) stores each buffer's events as Microsoft's "plain LZ77" (MS-XCA 2.3/2.4, what
/// RtlDecompressBuffer calls COMPRESSION_FORMAT_XPRESS). Bounds-checked on both sides.
/// </summary>
internal static class Lz77Decoder
{
    /// <returns>The number of bytes written, or -1 when the input does not decode into <paramref name="output"/>.</returns>
    public static int Decode(ReadOnlySpan<byte> input, Span<byte> output)
    {
        var inPos = 0;
        var outPos = 0;
        uint flags = 0;
        var flagCount = 0;
        var halfBytePos = -1;
        while (true)
        {
            if (flagCount == 0)
            {
                if (inPos + 4 > input.Length)
                {
                    return outPos;
                }

                flags = (uint)(input[inPos] | input[inPos + 1] << 8 | input[inPos + 2] << 16 | input[inPos + 3] << 24);
                inPos += 4;
                flagCount = 32;
            }

            flagCount--;
            if ((flags & (1u << flagCount)) == 0)
            {
                if (inPos >= input.Length)
                {
                    return outPos;
                }

                if (outPos >= output.Length)
                {
                    return -1;
                }

                output[outPos++] = input[inPos++];
                continue;
            }

            if (inPos >= input.Length)
            {
                return outPos;
            }

            if (inPos + 2 > input.Length)
            {
                return -1;
            }

            int matchBytes = input[inPos] | input[inPos + 1] << 8;
            inPos += 2;
            var length = matchBytes & 7;
            var offset = (matchBytes >> 3) + 1;
            if (length == 7)
            {
                if (halfBytePos < 0)
                {
                    if (inPos >= input.Length)
                    {
                        return -1;
                    }

                    length = input[inPos] & 0xF;
                    halfBytePos = inPos++;
                }
                else
                {
                    length = input[halfBytePos] >> 4;
                    halfBytePos = -1;
                }

                if (length == 15)
                {
                    if (inPos >= input.Length)
                    {
                        return -1;
                    }

                    length = input[inPos++];
                    if (length == 255)
                    {
                        if (inPos + 2 > input.Length)
                        {
                            return -1;
                        }

                        length = input[inPos] | input[inPos + 1] << 8;
                        inPos += 2;
                        if (length == 0)
                        {
                            if (inPos + 4 > input.Length)
                            {
                                return -1;
                            }

                            length = input[inPos] | input[inPos + 1] << 8 | input[inPos + 2] << 16 | input[inPos + 3] << 24;
                            inPos += 4;
                        }

                        if (length < 15 + 7)
                        {
                            return -1;
                        }

                        length -= 15 + 7;
                    }

                    length += 15;
                }

                length += 7;
            }

            length += 3;
            if (offset > outPos || length < 0 || length > output.Length - outPos)
            {
                return -1;
            }

            // Byte by byte: a match may overlap the bytes it produces (a run).
            for (var i = 0; i < length; i++)
            {
                output[outPos] = output[outPos - offset];
                outPos++;
            }
        }
    }
}
