package sse

import (
	"bytes"
	"io"
	"testing"
)

func benchRead(b *testing.B, in []byte, wantEvents int) {
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		rd := NewReader(bytes.NewReader(in), 0)
		n := 0
		for {
			_, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != wantEvents {
			b.Fatalf("got %d events, want %d", n, wantEvents)
		}
	}
}

// BenchmarkReader covers the two shapes that matter: one image event whose
// data line is 20 MB of base64, and a chat-like stream of many small events.
func BenchmarkReader(b *testing.B) {
	b.Run("one-20MB-line", func(b *testing.B) {
		in := append([]byte("event: image_edit.completed\ndata: "), bytes.Repeat([]byte("QUJD"), 5<<20)...)
		in = append(in, "\n\n"...)
		benchRead(b, in, 1)
	})
	b.Run("10k-small-events", func(b *testing.B) {
		var buf bytes.Buffer
		for range 10000 {
			buf.WriteString("data: {\"id\":\"chatcmpl-1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"word \"}}]}\r\n\r\n")
		}
		benchRead(b, buf.Bytes(), 10000)
	})
}
