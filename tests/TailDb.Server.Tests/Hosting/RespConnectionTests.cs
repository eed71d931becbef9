using System.IO.Pipelines;
using TailDb.Server.Hosting;

namespace TailDb.Server.Tests.Hosting;

public sealed class RespConnectionTests
{
    [Fact]
    public void A_connection_aborted_twice_closes_its_transport_once_and_says_which_call_did()
    {
        string directory = Path.Combine(Path.GetTempPath(), $"taildb-conn-{Guid.NewGuid():N}");
        try
        {
            using var store = TailDbStore.Open(new TailDbOptions { Directory = directory });
            var state = new ServerState(store, new ServerOptions { Directory = directory }, () => { });
            var pipe = new Pipe();
            int closes = 0;
            var connection = new RespConnection(pipe.Reader, pipe.Writer, () => closes++, completed: null, state, id: 1);

            // The idle sweep can meet a connection again before its loop has ended: only the first call closes, and counts.
            Assert.True(connection.Abort());
            Assert.False(connection.Abort());
            Assert.Equal(1, closes);
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
    }
}
