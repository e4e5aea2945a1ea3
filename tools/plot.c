/* gnuplot started once per set of plots, commands written to its standard input. */
#include "plot.h"

#include <stdlib.h>
#include <string.h>

int plot_have_gnuplot(void)
{
    return system("command -v gnuplot >/dev/null 2>&1") == 0;
}

FILE *plot_open(const char *dir, int width, int height)
{
    if (strchr(dir, '\'') || !plot_have_gnuplot())
        return NULL;
    FILE *g = popen("gnuplot", "w");
    if (g)
        fprintf(g, "set terminal png size %d,%d\ncd '%s'\n", width, height, dir);
    return g;
}

int plot_close(FILE *gnuplot)
{
    return pclose(gnuplot) == 0 ? 0 : -1;
}
