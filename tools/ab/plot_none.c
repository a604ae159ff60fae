// SPDX-License-Identifier: GPL-2.0
/* vmpctl ab report --plot in a vmpctl built with PLOT=0 (plot.h). */
#include "plot.h"
#include "exit_codes.h"
#include "output.h"

int ab_plot_saved(const struct ab_saved *saved, const struct ab_result *r,
		  const char *path)
{
	(void)saved;
	(void)r;
	vmpctl_error("ab report: --plot %s: this vmpctl was built without cairo (PLOT=0); build it with PLOT=1 and libcairo2-dev",
		     path);
	return EXIT_USAGE;
}

int ab_plot_forest(const struct forest_plot *f, const char *path)
{
	(void)f;
	vmpctl_error("ab merge: --plot %s: this vmpctl was built without cairo (PLOT=0); build it with PLOT=1 and libcairo2-dev",
		     path);
	return EXIT_USAGE;
}
