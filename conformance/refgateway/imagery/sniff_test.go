package imagery

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSniff(t *testing.T) {
	img := Render(Scene{Prompt: "sniff", Width: 8, Height: 8, Preview: -1})
	enc := func(format string, compression *int) []byte {
		b, err := Encode(img, format, compression)
		require.NoError(t, err)
		return b
	}
	tests := []struct {
		name string
		b    []byte
		want string
	}{
		{"png", enc(FormatPNG, nil), FormatPNG},
		{"jpeg", enc(FormatJPEG, nil), FormatJPEG},
		{"webp lossless", enc(FormatWebP, nil), FormatWebP},
		{"webp lossy", enc(FormatWebP, ptr(50)), FormatWebP},
		{"gif87a", []byte("GIF87a...."), FormatGIF},
		{"gif89a", []byte("GIF89a...."), FormatGIF},
		{"empty", nil, FormatUnknown},
		{"text", []byte("hello, this is not an image"), FormatUnknown},
		{"png magic cut", []byte("\x89PNG\r\n"), FormatUnknown},
		{"jpeg two bytes", []byte{0xFF, 0xD8}, FormatUnknown},
		{"riff not webp", []byte("RIFF\x00\x00\x00\x00WAVEfmt "), FormatUnknown},
		{"riff short", []byte("RIFF\x00\x00\x00\x00WEB"), FormatUnknown},
		{"webp tag without riff", []byte("XXXX\x00\x00\x00\x00WEBPVP8 "), FormatUnknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Sniff(tt.b))
		})
	}
}
