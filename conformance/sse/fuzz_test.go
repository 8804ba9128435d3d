package sse

import (
	"bytes"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fuzzCap is small so that the fuzzer reaches ErrTooLarge often.
const fuzzCap = 64

// FuzzReader: the reader never panics, never returns an event whose data is
// larger than the cap, and its result does not depend on how the input is
// chunked (whole versus one byte per Read). Seeds are in testdata/fuzz/FuzzReader.
func FuzzReader(f *testing.F) {
	f.Fuzz(func(t *testing.T, in []byte) {
		whole, errWhole := readAll(bytes.NewReader(in), fuzzCap)
		for _, ev := range whole {
			require.LessOrEqual(t, len(ev.Data), fuzzCap)
			require.LessOrEqual(t, len(ev.Name), fuzzCap)
			require.LessOrEqual(t, len(ev.ID), fuzzCap)
			require.Positive(t, ev.Line)
		}
		bytewise, errBytewise := readAll(iotest.OneByteReader(bytes.NewReader(in)), fuzzCap)
		assert.Equal(t, whole, bytewise)
		assert.Equal(t, errString(errWhole), errString(errBytewise))
	})
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
