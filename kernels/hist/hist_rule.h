/* The hist family's definition, shared by OpenCL, CUDA, OpenMP and the C++ reference: 256 bins of
 * 8-bit samples, one histogram per channel of an interleaved image, counted as 32-bit unsigned
 * integers and stored channel after channel (bin b of channel c at index c * 256 + b). */
#ifndef PIMG_HIST_RULE_H
#define PIMG_HIST_RULE_H

#define PIMG_HIST_BINS 256

/* Index in the output of the bin of sample `v` found at byte offset `i` of an interleaved image of
 * `channels` channels. */
#define PIMG_HIST_SLOT(i, v, channels) ((((i) % (channels)) << 8) + (v))

#endif
