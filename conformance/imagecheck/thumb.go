package imagecheck

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/png"
	"strconv"
	"strings"

	"golang.org/x/image/draw"
)

// Thumbnail renders img as a PNG no larger than maxSide on its longer side
// (aspect ratio kept, never enlarged) and returns it as a data: URL for
// embedding in an HTML report. Alpha is kept, so a transparent result still
// looks transparent (the report draws a checkerboard behind it). maxSide <= 0
// means 128. A nil or empty image gives "".
func Thumbnail(img image.Image, maxSide int) string {
	if img == nil || img.Bounds().Empty() {
		return ""
	}
	if maxSide <= 0 {
		maxSide = 128
	}
	r := img.Bounds()
	w, h := r.Dx(), r.Dy()
	if w > maxSide || h > maxSide {
		if w >= h {
			h = max(1, h*maxSide/w)
			w = maxSide
		} else {
			w = max(1, w*maxSide/h)
			h = maxSide
		}
	}
	// Scale into premultiplied RGBA so edges between transparent and opaque
	// pixels blend without dark fringes; the PNG encoder un-premultiplies.
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.ApproxBiLinear.Scale(dst, dst.Bounds(), img, r, draw.Src, nil)
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(&buf, dst); err != nil {
		return "" // cannot happen for an in-memory RGBA; a report just shows no picture
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes())
}

// ParseSize parses a size of the spec's form `<width>x<height>` (2.2), e.g.
// "1024x1024": two positive decimal integers without sign, leading zeros or
// spaces, joined by a lowercase x. Anything else, "auto" included, is an
// error: callers map "auto" or an omitted size to what they expect first.
func ParseSize(s string) (w, h int, err error) {
	ws, hs, ok := strings.Cut(s, "x")
	if !ok {
		return 0, 0, fmt.Errorf("size %q: want <width>x<height>", s)
	}
	if w, err = dim(ws); err != nil {
		return 0, 0, fmt.Errorf("size %q: width: %w", s, err)
	}
	if h, err = dim(hs); err != nil {
		return 0, 0, fmt.Errorf("size %q: height: %w", s, err)
	}
	return w, h, nil
}

func dim(s string) (int, error) {
	if s == "" {
		return 0, fmt.Errorf("empty")
	}
	if len(s) > 9 {
		return 0, fmt.Errorf("too large")
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, fmt.Errorf("not a decimal number")
		}
	}
	if s[0] == '0' {
		return 0, fmt.Errorf("must be positive without leading zeros")
	}
	return strconv.Atoi(s)
}
