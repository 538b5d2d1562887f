/* The hist family's definition, shared by OpenCL, CUDA, OpenMP and the C++ reference: 256 bins of
 * 8-bit samples, one histogram per channel of an interleaved or planar image, counted as 32-bit unsigned
 * integers and stored channel after channel (bin b of channel c at index c * 256 + b). */
#ifndef PIMG_HIST_RULE_H
#define PIMG_HIST_RULE_H

#define PIMG_HIST_BINS 256

/* Index in the output of the bin of sample `v` found at byte offset `i` of an interleaved image of
 * `channels` channels. */
#define PIMG_HIST_SLOT(i, v, channels) ((((i) % (channels)) << 8) + (v))

/* The kernels' view of the layout: with PIMG_PLANAR 1 the channels are planes of PIMG_PLANE samples each
 * (seed 002's CImg images), else interleaved. PIMG_HIST_CHANNEL(i): the channel of sample i;
 * PIMG_HIST_NEXT(c, i): the channel of sample i + 1, sample i being of channel c; PIMG_HIST_AT(px, c): the
 * sample of channel c of pixel px. */
#if defined(PIMG_PLANAR) && PIMG_PLANAR
#define PIMG_HIST_CHANNEL(i) ((i) / PIMG_PLANE)
#define PIMG_HIST_NEXT(c, i) ((i) + 1 == ((c) + 1) * PIMG_PLANE ? (c) + 1 : (c))
#define PIMG_HIST_AT(px, c) ((c) * PIMG_PLANE + (px))
#else
#define PIMG_HIST_CHANNEL(i) ((i) % PIMG_CHANNELS)
#define PIMG_HIST_NEXT(c, i) (PIMG_CHANNELS == 1 ? 0 : ((c) + 1 == PIMG_CHANNELS ? 0 : (c) + 1))
#define PIMG_HIST_AT(px, c) ((px) * PIMG_CHANNELS + (c))
#endif

#endif
