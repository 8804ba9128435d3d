package imagery

import "bytes"

// FormatGIF and FormatUnknown complete the names Sniff returns.
const (
	FormatGIF     = "gif"
	FormatUnknown = "unknown"
)

// Sniff names the image format from the magic bytes at the start of b: png,
// jpeg, webp (a RIFF container of type WEBP), gif, or unknown. Only the
// signatures matter; whether the rest decodes is the decoder's business.
//
// This is deliberately a copy of what the engine's checks do, not a call to
// them. The gateway is the thing the checks judge, and a judge and the judged
// must not share a reader: with one sniffer, a bug in it (say, a lossy WebP
// taken for unknown) would make the gateway and the checks agree on the same
// wrong answer, and no test would see it. Keep the two apart; do not merge
// them in a later tidy.
func Sniff(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return FormatPNG
	case bytes.HasPrefix(b, []byte{0xFF, 0xD8, 0xFF}):
		return FormatJPEG
	case len(b) >= 12 && string(b[0:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return FormatWebP
	case bytes.HasPrefix(b, []byte("GIF87a")), bytes.HasPrefix(b, []byte("GIF89a")):
		return FormatGIF
	}
	return FormatUnknown
}
