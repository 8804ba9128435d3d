package imagery

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"sync"

	"github.com/HugoSmits86/nativewebp"
	lossywebp "github.com/deepteams/webp"
	xwebp "golang.org/x/image/webp"
)

// Format names as used by output_format.
const (
	FormatPNG  = "png"
	FormatJPEG = "jpeg"
	FormatWebP = "webp"
)

// DefaultCompression stands for an omitted output_compression. It is 100 for
// every format so that "omitted" and "100" always mean the same thing: best
// quality JPEG and lossless WebP.
const DefaultCompression = 100

// webpLossyMethod is the deepteams encoder effort (0 fastest … 6 smallest).
// Measured on a 1024² transparent image: methods 0–2 take 70–100 ms and
// are within noise of each other; the library default 4 takes ~2 s for
// ~15% fewer bytes. The gateway encodes many images under -race on two
// cores, so speed wins.
const webpLossyMethod = 1

// ErrUnknownFormat is returned for an output format other than png, jpeg, webp.
var ErrUnknownFormat = errors.New("imagery: unknown image format")

// Encode encodes img as png, jpeg or webp.
//
// compression is output_compression 0..100 (nil: DefaultCompression); out of
// range values are an error rather than being clamped, so a gateway that
// forgot to validate does not silently produce something else.
//
//   - png: compression is ignored (PNG is lossless). Images without any
//     non-opaque pixel are written as RGB (colour type 2), others as RGBA.
//   - jpeg: quality = compression, except 0 → 1 because JPEG quality starts
//     at 1. Higher output_compression thus means better quality and larger
//     files, matching the verified behaviour (0 smallest, 100 largest).
//     Transparent pixels are composited over white: JPEG has no alpha.
//   - webp: nil or 100 → lossless VP8L (nativewebp); below 100 → lossy VP8
//     with a losslessly coded alpha plane (deepteams/webp), quality =
//     compression.
func Encode(img image.Image, format string, compression *int) ([]byte, error) {
	if img == nil {
		return nil, errors.New("imagery: nil image")
	}
	if img.Bounds().Empty() {
		return nil, errors.New("imagery: empty image")
	}
	c := DefaultCompression
	if compression != nil {
		c = *compression
		if c < 0 || c > 100 {
			return nil, fmt.Errorf("imagery: output_compression %d outside 0..100", c)
		}
	}
	var buf bytes.Buffer
	var err error
	switch format {
	case FormatPNG:
		err = pngEncoder.Encode(&buf, forPNG(img))
	case FormatJPEG:
		err = jpeg.Encode(&buf, overWhite(img), &jpeg.Options{Quality: max(c, 1)})
	case FormatWebP:
		if c == 100 {
			err = nativewebp.Encode(&buf, img, nil)
		} else {
			warmLossyWebP.Do(warmUpLossyWebP)
			o := lossywebp.DefaultOptions()
			o.Quality = float32(c)
			o.Method = webpLossyMethod
			err = lossywebp.Encode(&buf, img, o)
		}
	default:
		return nil, fmt.Errorf("%w %q (want png, jpeg or webp)", ErrUnknownFormat, format)
	}
	if err != nil {
		return nil, fmt.Errorf("imagery: encode %s: %w", format, err)
	}
	return buf.Bytes(), nil
}

// warmLossyWebP runs one small lossy encode before any other: the
// deepteams encoder fills package-level tables lazily on first use without
// locking, so two first encodes at once race (the race detector sees it in
// the gateway's concurrent image requests). Once filled they are only read.
var warmLossyWebP sync.Once

func warmUpLossyWebP() {
	o := lossywebp.DefaultOptions()
	o.Method = webpLossyMethod
	_ = lossywebp.Encode(io.Discard, image.NewNRGBA(image.Rect(0, 0, 16, 16)), o)
}

// pngEncoder uses BestSpeed: the gateway's PNGs are synthetic pictures sent
// over loopback in tests, so encode time (which dominates a 1024² request
// under -race) matters far more than bytes. The buffer pool reuses the zlib
// state between requests, which is safe for concurrent use.
var pngEncoder = png.Encoder{CompressionLevel: png.BestSpeed, BufferPool: &pngPool{}}

type pngPool struct{ p sync.Pool }

func (p *pngPool) Get() *png.EncoderBuffer {
	b, _ := p.p.Get().(*png.EncoderBuffer)
	return b
}
func (p *pngPool) Put(b *png.EncoderBuffer) { p.p.Put(b) }

// forPNG returns an image the png encoder handles well. For *image.NRGBA and
// *image.RGBA the standard encoder already scans for opacity and writes an
// opaque image as RGB (no alpha channel for decoders to see) through a fast
// path, so no copy is needed. Other types (e.g. *image.YCbCr from a JPEG)
// would be written as 16-bit via per-pixel At calls, so they are converted.
func forPNG(img image.Image) image.Image {
	switch img.(type) {
	case *image.NRGBA, *image.RGBA, *image.Gray, *image.Paletted:
		return img
	}
	b := img.Bounds()
	return resample(img, b.Dx(), b.Dy())
}

// overWhite returns an opaque image for the jpeg encoder: transparent
// pixels composited over white, as a white page is the usual assumption for
// a format without alpha. *image.RGBA is used because image/jpeg has a fast
// path for it. norace: the loop only writes the image it allocates (see
// the note in render.go).
//
//go:norace
func overWhite(img image.Image) image.Image {
	if y, ok := img.(*image.YCbCr); ok {
		return y // already opaque and the encoder's native type
	}
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	src, ok := img.(*image.NRGBA)
	if !ok {
		src = resample(img, w, h)
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		s := src.Pix[src.PixOffset(src.Rect.Min.X, src.Rect.Min.Y+y):][:4*w]
		d := dst.Pix[y*dst.Stride:][:4*w]
		for o := 0; o < 4*w; o += 4 {
			a := uint32(s[o+3])
			if a == 255 {
				d[o], d[o+1], d[o+2] = s[o], s[o+1], s[o+2]
			} else {
				// c*a + 255*(1-a), rounded.
				for i := range 3 {
					d[o+i] = uint8((uint32(s[o+i])*a + 255*(255-a) + 127) / 255)
				}
			}
			d[o+3] = 255
		}
	}
	return dst
}

// Decode sniffs png, jpeg or webp by magic bytes and decodes the image.
// It returns the format name ("png", "jpeg" or "webp"). Sniffing here rather
// than image.Decode avoids depending on which packages registered which
// decoders (both x/image/webp and deepteams/webp register "webp").
func Decode(b []byte) (image.Image, string, error) {
	f := Sniff(b)
	var img image.Image
	var err error
	switch f {
	case FormatPNG:
		img, err = png.Decode(bytes.NewReader(b))
	case FormatJPEG:
		img, err = jpeg.Decode(bytes.NewReader(b))
	case FormatWebP:
		img, err = xwebp.Decode(bytes.NewReader(b))
	default:
		return nil, "", errors.New("imagery: not a png, jpeg or webp image")
	}
	if err != nil {
		return nil, f, fmt.Errorf("imagery: decode %s: %w", f, err)
	}
	return img, f, nil
}
