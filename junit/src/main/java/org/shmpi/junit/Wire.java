package org.shmpi.junit;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * The protocol between the test JVM (the controller) and the ranks of a test job, over one
 * loopback TCP connection per rank. Every value is big-endian; a string is an int byte count
 * and UTF-8 bytes.
 * <pre>
 * rank -> controller, once:  HELLO  int MAGIC, long token, int rank, int size, long pid
 * controller -> rank:        RUN    byte 'R', int id, string class, string method
 *                            EXIT   byte 'X'   (the rank finalizes MPI and exits 0)
 * rank -> controller:        RESULT byte 'r', int id, byte outcome, long nanos,
 *                                   string throwable class, string message, string stack trace,
 *                                   int n + n bytes of the serialized throwable (0: none),
 *                                   string output
 *                            EARLY  the same as RESULT with byte 'e': the body failed and the
 *                                   {@code @AfterEach} methods are about to run (a RESULT follows)
 * </pre>
 * The connection closing is a rank's end: the controller treats it as the rank exiting, and a
 * rank whose controller disappears exits at once.
 */
final class Wire
{
    static final int MAGIC = 0x53484d54; // "SHMT"
    static final byte RUN = 'R';
    static final byte EXIT = 'X';
    static final byte RESULT = 'r';
    static final byte EARLY = 'e';

    static final byte PASSED = 0;
    static final byte FAILED = 1;
    static final byte ABORTED = 2;

    /** The longest string either side sends: output beyond it is cut. */
    static final int MAX_STRING_BYTES = 4 << 20;

    private Wire()
    {
    }

    static void writeString(final DataOutputStream out, final String s) throws IOException
    {
        byte[] b = (s == null ? "" : s).getBytes(StandardCharsets.UTF_8);
        if (b.length > MAX_STRING_BYTES)
        {
            final byte[] cut = new byte[MAX_STRING_BYTES];
            System.arraycopy(b, b.length - MAX_STRING_BYTES, cut, 0, MAX_STRING_BYTES);
            b = cut;
        }
        out.writeInt(b.length);
        out.write(b);
    }

    static String readString(final DataInputStream in) throws IOException
    {
        return new String(readBytes(in), StandardCharsets.UTF_8);
    }

    static void writeBytes(final DataOutputStream out, final byte[] b) throws IOException
    {
        out.writeInt(b.length);
        out.write(b);
    }

    static byte[] readBytes(final DataInputStream in) throws IOException
    {
        final int n = in.readInt();
        if (n < 0 || n > MAX_STRING_BYTES)
        {
            throw new IOException("bad length on the test job's wire: " + n);
        }
        final byte[] b = new byte[n];
        in.readFully(b);
        return b;
    }

    /** One rank's result of one run. */
    static final class Result
    {
        final int rank;
        final int id;
        final byte outcome;
        /** Sent before the {@code @AfterEach} methods ran: the final result is still to come. */
        final boolean early;
        final long nanos;
        final String throwableClass;
        final String message;
        final String stackTrace;
        final byte[] serialized;
        final String output;

        Result(final int rank, final int id, final byte outcome, final long nanos, final String throwableClass,
            final String message, final String stackTrace, final byte[] serialized, final String output)
        {
            this(rank, id, outcome, nanos, throwableClass, message, stackTrace, serialized, output, false);
        }

        Result(final int rank, final int id, final byte outcome, final long nanos, final String throwableClass,
            final String message, final String stackTrace, final byte[] serialized, final String output,
            final boolean early)
        {
            this.early = early;
            this.rank = rank;
            this.id = id;
            this.outcome = outcome;
            this.nanos = nanos;
            this.throwableClass = throwableClass;
            this.message = message;
            this.stackTrace = stackTrace;
            this.serialized = serialized;
            this.output = output;
        }

        void write(final DataOutputStream out) throws IOException
        {
            out.writeByte(early ? EARLY : RESULT);
            out.writeInt(id);
            out.writeByte(outcome);
            out.writeLong(nanos);
            writeString(out, throwableClass);
            writeString(out, message);
            writeString(out, stackTrace);
            writeBytes(out, serialized);
            writeString(out, output);
            out.flush();
        }

        static Result read(final int rank, final DataInputStream in) throws IOException
        {
            final byte kind = in.readByte();
            if (kind != RESULT && kind != EARLY)
            {
                throw new IOException("rank " + rank + " sent " + kind + " where a result was due");
            }
            final int id = in.readInt();
            final byte outcome = in.readByte();
            final long nanos = in.readLong();
            return new Result(rank, id, outcome, nanos, readString(in), readString(in), readString(in),
                readBytes(in), readString(in), kind == EARLY);
        }
    }
}
