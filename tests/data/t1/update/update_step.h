// The update of one element: twice what it held, plus the input, plus how often it was counted.
inline float update_step(float previous, float x, float counted) { return 2.0f * previous + x + counted; }
