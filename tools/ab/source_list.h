/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every source of progress (sources.h), one line each: AB_SOURCE(NAME) is
 * the struct ab_source_ops ab_source_NAME that source_NAME.c defines. The
 * presets are listed (and named in --preset's errors) in this order. No
 * include guard: source_table.c includes it once per use.
 */
AB_SOURCE(regex)
AB_SOURCE(count_regex)
AB_SOURCE(sysbench)
AB_SOURCE(fio)
AB_SOURCE(iperf3)
AB_SOURCE(pgbench)
AB_SOURCE(counter)
