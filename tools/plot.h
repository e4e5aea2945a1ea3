/* plot: PNG plots through gnuplot, for the tools that draw them (pangea-tune, pangea-prof). */
#ifndef PANGEA_TOOLS_PLOT_H
#define PANGEA_TOOLS_PLOT_H

#include <stdio.h>

/* Whether gnuplot can be started (Debian package gnuplot-nox). */
int plot_have_gnuplot(void);
/* A gnuplot reading commands from the returned stream, drawing PNG files of width x height
 * pixels into dir (its working directory): NULL when it cannot be started or dir's name holds
 * a quote. */
FILE *plot_open(const char *dir, int width, int height);
/* Ends the commands: 0 when gnuplot drew every plot without an error. */
int plot_close(FILE *gnuplot);

#endif
