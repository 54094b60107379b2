package mpi;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.Field;

import org.junit.jupiter.api.Test;
import org.shmpi.report.CallKind;

/** The int constants of the call path name the same kinds as the report's enum. */
class CallsTest
{
    @Test
    void everyConstantIsTheOrdinalOfItsKind() throws Exception
    {
        for (final CallKind k : CallKind.values())
        {
            final Field f = Calls.class.getDeclaredField(k.name());
            assertEquals(k.ordinal(), f.getInt(null), k.name());
        }
        assertEquals(CallKind.count(), Calls.class.getDeclaredFields().length);
    }
}
