/* report_accuracy.h — written by tools/accuracy_update.py from
 * tests/test_accuracy.c's output; do not edit. The training figures the
 * reports quote (rows, mean |error| %, max |error| %). */
#define ACC_HIGH_ROWS 28
#define ACC_HIGH_MEAN 4.8
#define ACC_HIGH_MAX 24.6
#define ACC_OTHER_ROWS 37
#define ACC_OTHER_MEAN 6.8
#define ACC_MEM_ROWS 10
#define ACC_MEM_MEAN 6.2
#define ACC_MEM_MAX 12.1
/* leave-one-source-group-out: rows, MAPE %, worst group's MAPE % */
#define ACC_CV_ROWS 108
#define ACC_CV_MAPE 6.6
#define ACC_CV_WORST 19.7
