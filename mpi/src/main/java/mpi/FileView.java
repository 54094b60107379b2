package mpi;

/** A file view as {@link File#getView} returns it: displacement (bytes), etype, filetype, data representation. */
public final class FileView
{
    private final long disp;
    private final Datatype etype;
    private final Datatype filetype;
    private final String datarep;

    /** A view: {@code disp} bytes into the file, data of {@code etype} laid out by {@code filetype}. */
    public FileView(final long disp, final Datatype etype, final Datatype filetype, final String datarep)
    {
        this.disp = disp;
        this.etype = etype;
        this.filetype = filetype;
        this.datarep = datarep;
    }

    public long getDisp()
    {
        return disp;
    }

    public Datatype getEType()
    {
        return etype;
    }

    public Datatype getFileType()
    {
        return filetype;
    }

    public String getDataRep()
    {
        return datarep;
    }
}
