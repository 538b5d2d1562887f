/* sharpen3, 1 channel, replicated border: the defines conv_family.cpp gives this problem */
#define PIMG_K 3
#define PIMG_R 1
#define PIMG_CHANNELS 1
#define PIMG_PLANAR 0
#define PIMG_BORDER 2
#define PIMG_DIVISOR 1
#define PIMG_WEIGHTS 0, -1, 0, -1, 5, -1, 0, -1, 0
#define PIMG_NDISTINCT 3
#define PIMG_TAPS 0, 1, 0, 1, 2, 1, 0, 1, 0
#define PIMG_SEPARABLE 0
#define PIMG_PACKED 0
#define PIMG_SIMD 1
#define PIMG_SIMD_SHIFT 0
#define ITEMS_X 1
#define ITEMS_Y 1
#define FILTER_MEM 2
#define UNROLL 1
#define INLINE 1
#define SEPARABLE 0
#define PACKED 0
#define SIMD 1
