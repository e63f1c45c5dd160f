/* test_consistency_money.c — the one text of a dollar amount (table_usd,
 * table.h) that plan, estimate, the TUI and the reports all print. Every
 * expected string is written out by hand from the rule: cents below $10k;
 * from $10k three significant figures and k, M, B or T; a width that cents
 * do not fit drops decimals (the TUI's 6-column $/H and COST columns at
 * 80 columns). tests/test_consistency_money.sh checks the views. */
#include "t.h"
#include "table.h"

#define USD(v, w, want)                                                      \
	do {                                                                 \
		char b_[32];                                                 \
		table_usd(b_, sizeof b_, v, w);                              \
		if (strcmp(b_, want))                                        \
			T_FAILF("table_usd(%.17g, %d) = [%s], want [%s]", (double)(v), w, b_, want); \
	} while (0)

TEST(cents_below_10k)
{
	USD(0, 0, "$0.00");
	USD(0.413, 0, "$0.41");
	USD(23.57, 0, "$23.57");
	USD(110.08, 0, "$110.08");        /* 2 x $55.04 a node-hour */
	USD(1043.35, 0, "$1043.35");
	USD(9999.99, 0, "$9999.99");
}

TEST(three_figures_from_10k)
{
	USD(9999.995, 0, "$10.0k");       /* cents would round to $10000.00 */
	USD(10000, 0, "$10.0k");
	USD(10240, 0, "$10.2k");
	USD(41234, 0, "$41.2k");
	USD(409999, 0, "$410k");
	USD(999499, 0, "$999k");
	USD(999500, 0, "$1.00M");         /* not "$1000k" */
	USD(4.36e6, 0, "$4.36M");
	USD(12.34e6, 0, "$12.3M");
	USD(258.12e6, 0, "$258M");
	USD(1.234e9, 0, "$1.23B");
	USD(12.3e12, 0, "$12.3T");
	USD(2e15, 0, "$2e+15");
}

TEST(narrow_columns)
{
	/* 6 columns: "$1043.35" (8) -> "$1043.4" (7) -> "$1043" (5) */
	USD(1043.35, 6, "$1043");
	USD(260.84, 6, "$260.8");
	USD(23.57, 6, "$23.57");
	USD(260.84, 8, "$260.84");        /* the same column at 120 columns */
	USD(41234, 6, "$41.2k");          /* three figures always fit 6 */
	USD(258.12e6, 6, "$258M");
}

/* table_rate: a unit price ($ per 1M tokens, per GPU-hour, per
 * instance-hour) to a tenth of a cent, no "$": three decimals below
 * 10,000, table_usd's three figures and unit from there; a narrow column
 * drops decimals. Written out by hand from that rule. */
#define RATE(v, w, want)                                                     \
	do {                                                                 \
		char b_[32];                                                 \
		table_rate(b_, sizeof b_, v, w);                             \
		if (strcmp(b_, want))                                        \
			T_FAILF("table_rate(%.17g, %d) = [%s], want [%s]", (double)(v), w, b_, want); \
	} while (0)

TEST(rates)
{
	RATE(0, 0, "0.000");
	RATE(0.31, 0, "0.310");           /* the plan table wrote $0.31, estimate $0.310 */
	RATE(0.2345, 0, "0.234");         /* binary 0.2345 is below the half */
	RATE(3.2, 0, "3.200");            /* the price book's A10 a GPU-hour */
	RATE(113.933, 0, "113.933");
	RATE(9999.9994, 0, "9999.999");
	RATE(9999.9995, 0, "10.0k");
	RATE(45678, 0, "45.7k");
	RATE(1.234e9, 0, "1.23B");
	/* the TUI's 5-column $/1M: "12.345" (6) -> "12.35"; 6-column SPOT */
	RATE(12.345, 5, "12.35");
	RATE(0.31, 5, "0.310");
	RATE(4567.1, 5, "4567");
	RATE(113.933, 6, "113.93");
	RATE(45678, 5, "45.7k");
}

int main(void)
{
	RUN(cents_below_10k);
	RUN(rates);
	RUN(three_figures_from_10k);
	RUN(narrow_columns);
	return t_done("consistency_money");
}
