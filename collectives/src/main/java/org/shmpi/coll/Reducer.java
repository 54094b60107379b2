package org.shmpi.coll;

/**
 * A reduction over packed items, as an MPI user function sees it:
 * {@code inout[i] = in[i] op inout[i]} for {@code items} items. The algorithms always pass the
 * contribution of the lower ranks as {@code in}, so a non-commutative op is applied in rank order.
 */
@FunctionalInterface
public interface Reducer
{
    void apply(byte[] in, int inOffset, byte[] inout, int inoutOffset, int items);
}
