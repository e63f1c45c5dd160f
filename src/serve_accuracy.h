/* serve_accuracy.h — written by tools/serve_accuracy_update.py from
 * tests/test_serve_accuracy.c's output; do not edit. The serving model's
 * measured errors (MAPE, %) and row counts that the serving report quotes. */
#ifndef HP_SERVE_ACCURACY_H
#define HP_SERVE_ACCURACY_H
#define SACC_BLIND_ITL_MAPE 15.2
#define SACC_BLIND_ITL_ROWS 32
#define SACC_BLIND_THR_MAPE 17.6
#define SACC_BLIND_THR_ROWS 129
#define SACC_BLIND_TTFT_MAPE 14.4
#define SACC_BLIND_TTFT_ROWS 32
#define SACC_ITL_MAPE 19.4
#define SACC_ITL_ROWS 48
#define SACC_OFFLINE_MAPE 17.1
#define SACC_OFFLINE_ROWS 667
#define SACC_PLACE_MAPE 19.9
#define SACC_PLACE_ROWS 4
#define SACC_SAT_MAPE 15.1
#define SACC_SAT_ROWS 8
#define SACC_TTFT_MAPE 13.0
#define SACC_TTFT_ROWS 48
#endif
