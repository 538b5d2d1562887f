/* gaussian5, 3 interleaved channels, replicated border: the defines conv_family.cpp gives this problem */
#define PIMG_K 5
#define PIMG_R 2
#define PIMG_CHANNELS 3
#define PIMG_PLANAR 0
#define PIMG_BORDER 2
#define PIMG_DIVISOR 256
#define PIMG_WEIGHTS 1, 4, 6, 4, 1, 4, 16, 24, 16, 4, 6, 24, 36, 24, 6, 4, 16, 24, 16, 4, 1, 4, 6, 4, 1
#define PIMG_NDISTINCT 6
#define PIMG_TAPS 0, 1, 2, 1, 0, 1, 3, 4, 3, 1, 2, 4, 5, 4, 2, 1, 3, 4, 3, 1, 0, 1, 2, 1, 0
#define PIMG_SEPARABLE 1
#define PIMG_COL_WEIGHTS 1, 4, 6, 4, 1
#define PIMG_ROW_WEIGHTS 1, 4, 6, 4, 1
#define PIMG_PACKED 1
#define PIMG_PACK_SHIFT 8
#define PIMG_SIMD 0
#define ITEMS_X 1
#define ITEMS_Y 1
#define FILTER_MEM 2
#define UNROLL 1
#define INLINE 1
#define SEPARABLE 1
#define PACKED 1
#define SIMD 0
