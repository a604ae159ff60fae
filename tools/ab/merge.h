/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmpctl ab merge FILE...: the --save files of the same A/B on many
 * hosts, pooled by a random-effects meta-analysis (stats_meta.h).
 */
#ifndef VMPCTL_AB_MERGE_H
#define VMPCTL_AB_MERGE_H

/* argv[0] is "merge"; exit status 0, 1 (a file cannot be analysed), 2 usage. */
int cmd_ab_merge(int argc, char **argv);

#endif
