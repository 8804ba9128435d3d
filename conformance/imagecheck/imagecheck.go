// Package imagecheck sniffs, decodes and inspects the images a gateway
// returns (spec 2.2 data[].b64_json, 6.1 b64_json): which format the bytes
// really are (by magic bytes, not by what the response claims), whether the
// matching decoder accepts them, their dimensions, and whether they carry
// real transparency. It also renders small thumbnails for HTML reports.
//
// Everything here treats its input as hostile: the bytes come from the
// gateway under test. Dimensions are read from the header and checked
// against MaxPixels before any pixel buffer is allocated.
package imagecheck

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"strings"

	"golang.org/x/image/webp"
)

// Format names, as Sniff returns them. They equal the spec's output_format
// values (4.5) for png, jpeg and webp.
const (
	PNG     = "png"
	JPEG    = "jpeg"
	WebP    = "webp"
	GIF     = "gif"
	Unknown = "unknown"
)

// MaxPixels caps width*height of an image Inspect will decode: 64
// megapixels, forty times the largest size the spec shows (1536x1024) yet
// small enough that a header claiming 100000x100000 cannot make us allocate
// tens of gigabytes. A 16-bit RGBA image at the cap still takes 512 MiB, so
// the cap is about survival, not thrift.
const MaxPixels = 64_000_000

// Info describes one image.
type Info struct {
	Format      string // png, jpeg, webp, gif or unknown, from the magic bytes
	Decoded     string // the format whose decoder accepted the bytes; "" if decoding failed
	Width       int    // decoded width (header width if decoding failed after the header)
	Height      int    // decoded height
	Alpha       bool   // at least one pixel with alpha < 255 (in 8-bit terms: < 100%)
	Transparent bool   // at least one pixel with alpha == 0
	SHA256      string // hex SHA-256 of the encoded bytes
	Bytes       int    // length of the encoded bytes
}

// Sniff names the image format from the magic bytes at the start of b.
// Only the signatures matter; whether the rest decodes is Inspect's job.
func Sniff(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return PNG
	case bytes.HasPrefix(b, []byte{0xFF, 0xD8, 0xFF}):
		return JPEG
	case len(b) >= 12 && string(b[0:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return WebP
	case bytes.HasPrefix(b, []byte("GIF87a")), bytes.HasPrefix(b, []byte("GIF89a")):
		return GIF
	}
	return Unknown
}

// DecodeBase64 decodes b64_json. The spec says b64_json is "base64 of the
// encoded image" (2.2, 6.1), so it must be plain standard base64 (RFC 4648
// section 4, with padding): a data: URL prefix, the URL-safe alphabet,
// missing padding, or line breaks and spaces inside the text are rejected
// (RFC 4648 section 3.3: characters outside the alphabet are an error unless
// the referring spec says otherwise, and this one does not). Whitespace
// around the whole value is tolerated, since it changes nothing. An empty
// value is an error: it holds no image.
func DecodeBase64(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, errors.New("base64: empty")
	}
	if strings.HasPrefix(s, "data:") {
		return nil, errors.New("base64: got a data: URL; b64_json must be plain base64")
	}
	// encoding/base64 silently skips \r and \n anywhere; the spec's plain
	// base64 has none, so refuse them before decoding.
	if i := strings.IndexAny(s, "\r\n\t "); i >= 0 {
		return nil, fmt.Errorf("base64: whitespace inside the value at offset %d", i)
	}
	b, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil {
		var ce base64.CorruptInputError
		if errors.As(err, &ce) {
			at := int(ce)
			hint := ""
			if at < len(s) && (s[at] == '-' || s[at] == '_') {
				hint = " (URL-safe alphabet; want standard)"
			} else if at >= len(s)-2 && len(s)%4 != 0 {
				hint = " (missing padding?)"
			}
			return nil, fmt.Errorf("base64: invalid input at offset %d%s", at, hint)
		}
		return nil, fmt.Errorf("base64: %w", err)
	}
	return b, nil
}

// Inspect sniffs b, reads its header, refuses images above MaxPixels, and
// decodes it with the decoder matching the magic bytes (image/png,
// image/jpeg, golang.org/x/image/webp; image/gif for the first frame of a
// GIF). The returned Info is filled as far as inspection got, even with an
// error: Format, SHA256 and Bytes always, Width and Height once the header
// was read. Decoded is set, and the image returned, only on success.
func Inspect(b []byte) (Info, image.Image, error) {
	return inspect(b, MaxPixels)
}

type codec struct {
	config func(io.Reader) (image.Config, error)
	decode func(io.Reader) (image.Image, error)
}

// codecs are chosen by magic bytes, never by trying each: a PNG labelled
// JPEG must fail as what it is, and the standard library's image.Decode
// would pick whichever registered decoder matches.
var codecs = map[string]codec{
	PNG:  {png.DecodeConfig, png.Decode},
	JPEG: {jpeg.DecodeConfig, jpeg.Decode},
	WebP: {webp.DecodeConfig, webp.Decode},
	GIF:  {gif.DecodeConfig, gif.Decode},
}

func inspect(b []byte, maxPixels int) (Info, image.Image, error) {
	sum := sha256.Sum256(b)
	info := Info{Format: Sniff(b), SHA256: hex.EncodeToString(sum[:]), Bytes: len(b)}
	if len(b) == 0 {
		return info, nil, errors.New("image: empty")
	}
	c, ok := codecs[info.Format]
	if !ok {
		return info, nil, fmt.Errorf("image: unknown format (first bytes % x)", head(b, 8))
	}
	cfg, err := c.config(bytes.NewReader(b))
	if err != nil {
		return info, nil, fmt.Errorf("%s header: %w", info.Format, err)
	}
	info.Width, info.Height = cfg.Width, cfg.Height
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return info, nil, fmt.Errorf("%s header: invalid size %dx%d", info.Format, cfg.Width, cfg.Height)
	}
	// Divide rather than multiply so the check cannot overflow.
	if cfg.Width > maxPixels/cfg.Height {
		return info, nil, fmt.Errorf("%s header: %dx%d exceeds the %d-pixel cap", info.Format, cfg.Width, cfg.Height, maxPixels)
	}
	img, err := safeDecode(c.decode, b)
	if err != nil {
		return info, nil, fmt.Errorf("%s decode: %w", info.Format, err)
	}
	r := img.Bounds()
	info.Decoded = info.Format
	info.Width, info.Height = r.Dx(), r.Dy()
	info.Alpha, info.Transparent = scanAlpha(img)
	return info, img, nil
}

// safeDecode turns a decoder panic into an error: the bytes are hostile and
// one malformed image must not take down a whole conformance run.
func safeDecode(dec func(io.Reader) (image.Image, error), b []byte) (img image.Image, err error) {
	defer func() {
		if p := recover(); p != nil {
			img, err = nil, fmt.Errorf("decoder panic: %v", p)
		}
	}()
	return dec(bytes.NewReader(b))
}

func head(b []byte, n int) []byte {
	if len(b) < n {
		return b
	}
	return b[:n]
}
