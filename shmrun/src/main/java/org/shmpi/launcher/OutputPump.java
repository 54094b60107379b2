package org.shmpi.launcher;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Copies one rank's stdout or stderr to the launcher's, a whole line at a time, under a lock
 * shared by every pump: lines of different ranks never interleave mid-line. A final line
 * without a newline is written when the stream ends.
 */
final class OutputPump extends Thread
{
    private final InputStream in;
    private final OutputStream out;
    private final Object lock;
    private final byte[] prefix;

    OutputPump(final String name, final InputStream in, final OutputStream out, final Object lock, final String prefix)
    {
        super(name);
        setDaemon(true);
        this.in = in;
        this.out = out;
        this.lock = lock;
        this.prefix = prefix == null ? new byte[0] : prefix.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void run()
    {
        final byte[] chunk = new byte[8192];
        byte[] line = new byte[256];
        int length = 0;
        try
        {
            int n;
            while ((n = in.read(chunk)) > 0)
            {
                for (int i = 0; i < n; i++)
                {
                    if (length == line.length)
                    {
                        line = java.util.Arrays.copyOf(line, line.length * 2);
                    }
                    line[length++] = chunk[i];
                    if (chunk[i] == '\n')
                    {
                        emit(line, length);
                        length = 0;
                    }
                }
            }
        }
        catch (final IOException ignore)
        {
            // The rank's end of the pipe closed (it exited or was killed): flush what we have.
        }
        if (length > 0)
        {
            line = java.util.Arrays.copyOf(line, length + 1);
            line[length] = '\n';
            emit(line, length + 1);
        }
    }

    private void emit(final byte[] line, final int length)
    {
        synchronized (lock)
        {
            try
            {
                out.write(prefix);
                out.write(line, 0, length);
                out.flush();
            }
            catch (final IOException ignore)
            {
                // Our own stdout is gone (e.g. a closed pipe); nothing sensible left to do.
            }
        }
    }
}
