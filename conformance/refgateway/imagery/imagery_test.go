package imagery

import (
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"math"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/imagecheck"
)

func ptr(i int) *int { return &i }

// meanAbsDiff is the mean absolute difference per RGB channel of two
// equally sized images, in 0..255.
func meanAbsDiff(t *testing.T, a, b image.Image) float64 {
	t.Helper()
	require.Equal(t, a.Bounds().Size(), b.Bounds().Size())
	na, nb := resample(a, a.Bounds().Dx(), a.Bounds().Dy()), resample(b, b.Bounds().Dx(), b.Bounds().Dy())
	var sum float64
	n := 0
	for i := 0; i < len(na.Pix); i += 4 {
		for c := range 3 {
			sum += math.Abs(float64(na.Pix[i+c]) - float64(nb.Pix[i+c]))
			n++
		}
	}
	return sum / float64(n)
}

// correlation is Pearson's r between the luma of a and b.
func correlation(a, b *image.NRGBA) float64 {
	var sa, sb, saa, sbb, sab, n float64
	for i := 0; i < len(a.Pix); i += 4 {
		x := float64(a.Pix[i]) + float64(a.Pix[i+1]) + float64(a.Pix[i+2])
		y := float64(b.Pix[i]) + float64(b.Pix[i+1]) + float64(b.Pix[i+2])
		sa, sb, saa, sbb, sab, n = sa+x, sb+y, saa+x*x, sbb+y*y, sab+x*y, n+1
	}
	cov := sab/n - sa/n*sb/n
	return cov / math.Sqrt((saa/n-sa/n*sa/n)*(sbb/n-sb/n*sb/n))
}

func alphaCounts(img image.Image) (zero, full, partial int) {
	n := resample(img, img.Bounds().Dx(), img.Bounds().Dy())
	for i := 3; i < len(n.Pix); i += 4 {
		switch n.Pix[i] {
		case 0:
			zero++
		case 255:
			full++
		default:
			partial++
		}
	}
	return
}

func TestRenderDeterministic(t *testing.T) {
	ref := Render(Scene{Prompt: "ref", Seed: 9, Width: 200, Height: 150})
	mask := image.NewNRGBA(image.Rect(0, 0, 200, 150))
	tests := []struct {
		name string
		s    Scene
	}{
		{"generate", Scene{Prompt: "a red fox", Seed: 1, Width: 256, Height: 256, Preview: -1}},
		{"wide", Scene{Prompt: "a red fox", Seed: 1, Width: 300, Height: 200, Preview: -1}},
		{"transparent", Scene{Prompt: "sticker", Seed: 2, Width: 128, Height: 128, Transparent: true, Preview: -1}},
		{"preview", Scene{Prompt: "a red fox", Seed: 1, Width: 256, Height: 256, Preview: 1}},
		{"edit", Scene{Prompt: "hat", Seed: 3, Width: 200, Height: 150, References: []image.Image{ref}, Mask: mask, Preview: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := Render(tt.s), Render(tt.s)
			assert.Equal(t, image.Rect(0, 0, tt.s.Width, tt.s.Height), a.Bounds())
			assert.Equal(t, a.Pix, b.Pix, "same scene must give the same pixels")
		})
	}
}

func TestRenderVaries(t *testing.T) {
	base := Scene{Prompt: "a red fox", Seed: 1, Width: 256, Height: 256, Preview: -1}
	tests := []struct {
		name   string
		modify func(*Scene)
	}{
		{"prompt", func(s *Scene) { s.Prompt = "a blue whale" }},
		{"seed", func(s *Scene) { s.Seed = 2 }},
		{"prompt/seed boundary", func(s *Scene) { s.Prompt = "a red fo"; s.Seed = 1 }},
		{"preview", func(s *Scene) { s.Preview = 0 }},
		{"transparent", func(s *Scene) { s.Transparent = true }},
	}
	a := Render(base)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := base
			tt.modify(&s)
			b := Render(s)
			assert.NotEqual(t, a.Pix, b.Pix)
		})
	}
	// Prompts should not merely differ in a few pixels: a test comparing
	// two generations by eye or by a coarse metric must see the change.
	assert.Greater(t, meanAbsDiff(t, a, Render(Scene{Prompt: "a blue whale", Seed: 1, Width: 256, Height: 256, Preview: -1})), 10.0)
}

func TestRenderPreviews(t *testing.T) {
	final := Render(Scene{Prompt: "castle", Width: 320, Height: 200, Preview: -1})
	prev := math.Inf(1)
	for p := range 4 {
		img := Render(Scene{Prompt: "castle", Width: 320, Height: 200, Preview: p})
		require.Equal(t, final.Bounds(), img.Bounds(), "preview %d keeps the size", p)
		d := meanAbsDiff(t, final, img)
		assert.Greater(t, d, 0.0, "preview %d differs from the final image", p)
		assert.Less(t, d, prev, "preview %d is closer to the final than the one before", p)
		prev = d
	}
	tiny := Render(Scene{Prompt: "x", Width: 3, Height: 5, Preview: 0})
	assert.Equal(t, image.Rect(0, 0, 3, 5), tiny.Bounds())
	assert.True(t, Render(Scene{Width: 0, Height: 10}).Bounds().Empty())
}

// checker is a reference unrelated to any prompt's picture.
func checker(w, h, cell int, c0, c1 color.NRGBA) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := c0
			if (x/cell+y/cell)%2 == 1 {
				c = c1
			}
			img.SetNRGBA(x, y, c)
		}
	}
	return img
}

func TestRenderEditDerivesFromReference(t *testing.T) {
	const w, h = 240, 160
	refA := checker(w, h, 20, color.NRGBA{0, 0, 0, 255}, color.NRGBA{255, 255, 255, 255})
	refB := Render(Scene{Prompt: "some photo", Seed: 77, Width: w, Height: h, Preview: -1})
	tests := []struct {
		name string
		refs []image.Image
	}{
		{"A", []image.Image{refA}},
		{"B", []image.Image{refB}},
		// A reference of another size is scaled to the output.
		{"A at half size", []image.Image{checker(w/2, h/2, 10, color.NRGBA{0, 0, 0, 255}, color.NRGBA{255, 255, 255, 255})}},
	}
	out := map[string]*image.NRGBA{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			img := Render(Scene{Prompt: "add a hat", Seed: 5, Width: w, Height: h, References: tt.refs, Preview: -1})
			out[tt.name] = img
			ref := resample(tt.refs[0], w, h)
			assert.Greater(t, correlation(img, ref), 0.5, "edit must correlate with its reference")
			assert.NotEqual(t, ref.Pix, img.Pix, "edit must change the reference")
		})
	}
	assert.Greater(t, meanAbsDiff(t, out["A"], out["B"]), 20.0, "different references give different edits")
	assert.Less(t, correlation(out["A"], refB), 0.3, "edit of A does not look like B")
	assert.Equal(t, out["A"].Pix, out["A at half size"].Pix, "nearest-neighbour scaling of an exact 2x reference")

	two := Render(Scene{Prompt: "add a hat", Seed: 5, Width: w, Height: h, References: []image.Image{refA, refB}, Preview: -1})
	// With two references each one shows: the blend correlates with B
	// more than an edit of A alone does, and vice versa.
	assert.Greater(t, correlation(two, refB), correlation(out["A"], refB)+0.1, "second reference shows")
	assert.Greater(t, correlation(two, refA), correlation(out["B"], refA)+0.1, "first reference shows")
}

func TestRenderEditMask(t *testing.T) {
	const w, h = 200, 200
	ref := Render(Scene{Prompt: "living room", Seed: 1, Width: w, Height: h, Preview: -1})
	// Opaque mask with a transparent rectangle: edit only inside it.
	edit := image.Rect(50, 60, 150, 120)
	mask := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			a := uint8(255)
			if (image.Point{x, y}).In(edit) {
				a = 0
			}
			mask.SetNRGBA(x, y, color.NRGBA{0, 0, 0, a})
		}
	}
	tests := []struct {
		name      string
		mask      image.Image
		tolerance int
	}{
		{"same size", mask, 0},
		// The mask arrives as a decoded PNG of another type in practice.
		{"as RGBA", toRGBA(mask), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			img := Render(Scene{Prompt: "add a lamp", Seed: 2, Width: w, Height: h, References: []image.Image{ref}, Mask: tt.mask, Preview: -1})
			var inside, insideChanged int
			for y := range h {
				for x := range w {
					got, want := img.NRGBAAt(x, y), ref.NRGBAAt(x, y)
					if (image.Point{x, y}).In(edit) {
						inside++
						if got != want {
							insideChanged++
						}
						continue
					}
					if got != want {
						require.Failf(t, "kept pixel changed", "(%d,%d): got %v want %v", x, y, got, want)
					}
				}
			}
			assert.Greater(t, float64(insideChanged)/float64(inside), 0.9, "edit region must change")
		})
	}
}

func toRGBA(src *image.NRGBA) *image.RGBA {
	dst := image.NewRGBA(src.Bounds())
	for y := src.Rect.Min.Y; y < src.Rect.Max.Y; y++ {
		for x := src.Rect.Min.X; x < src.Rect.Max.X; x++ {
			dst.Set(x, y, src.At(x, y))
		}
	}
	return dst
}

func TestRenderTransparent(t *testing.T) {
	img := Render(Scene{Prompt: "sticker of a cat", Width: 300, Height: 200, Transparent: true, Preview: -1})
	zero, full, partial := alphaCounts(img)
	assert.Greater(t, zero, 300*200/4, "transparent background")
	assert.Greater(t, full, 300*200/4, "opaque subject")
	assert.Positive(t, partial, "anti-aliased rim")
	assert.Equal(t, uint8(0), img.NRGBAAt(0, 0).A, "corner is background")
	assert.Equal(t, uint8(255), img.NRGBAAt(150, 100).A, "centre is subject")

	opaque := Render(Scene{Prompt: "sticker of a cat", Width: 300, Height: 200, Preview: -1})
	assert.True(t, opaque.Opaque())
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	// Odd sizes catch chroma-subsampling and row-padding edge cases; the
	// gateway's large sizes are exercised by the benchmarks, which keeps
	// this test fast under -race.
	sizes := []image.Point{{64, 48}, {301, 199}, {1, 1}}
	formats := []struct {
		name        string
		format      string
		compression *int
		lossless    bool
	}{
		{"png", "png", nil, true},
		{"png ignores compression", "png", ptr(10), true},
		{"jpeg default", "jpeg", nil, false},
		{"jpeg 0", "jpeg", ptr(0), false},
		{"jpeg 100", "jpeg", ptr(100), false},
		{"webp lossless", "webp", nil, true},
		{"webp 100 lossless", "webp", ptr(100), true},
		{"webp 50 lossy", "webp", ptr(50), false},
		{"webp 0 lossy", "webp", ptr(0), false},
	}
	for _, sz := range sizes {
		img := Render(Scene{Prompt: "roundtrip", Width: sz.X, Height: sz.Y, Preview: -1})
		for _, f := range formats {
			t.Run(f.name+"/"+sizeName(sz), func(t *testing.T) {
				b, err := Encode(img, f.format, f.compression)
				require.NoError(t, err)
				assert.Equal(t, f.format, imagecheck.Sniff(b))
				got, name, err := Decode(b)
				require.NoError(t, err)
				assert.Equal(t, f.format, name)
				assert.Equal(t, sz, got.Bounds().Size())
				d := meanAbsDiff(t, img, got)
				if f.lossless {
					assert.Zero(t, d, "lossless")
				} else {
					assert.Less(t, d, 25.0, "lossy but recognisable")
				}
			})
		}
	}
}

func TestEncodeTransparentKeepsAlpha(t *testing.T) {
	img := Render(Scene{Prompt: "sticker", Width: 256, Height: 192, Transparent: true, Preview: -1})
	tests := []struct {
		name        string
		format      string
		compression *int
	}{
		{"png", "png", nil},
		{"webp lossless", "webp", nil},
		{"webp lossy 50", "webp", ptr(50)},
		{"webp lossy 0", "webp", ptr(0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := Encode(img, tt.format, tt.compression)
			require.NoError(t, err)
			got, _, err := Decode(b)
			require.NoError(t, err)
			zero, full, _ := alphaCounts(got)
			assert.Positive(t, zero, "some pixels fully transparent")
			assert.Positive(t, full, "some pixels fully opaque")
		})
	}
}

func TestEncodeJPEGIsOpaque(t *testing.T) {
	img := Render(Scene{Prompt: "sticker", Width: 128, Height: 128, Transparent: true, Preview: -1})
	b, err := Encode(img, "jpeg", ptr(90))
	require.NoError(t, err)
	got, name, err := Decode(b)
	require.NoError(t, err)
	assert.Equal(t, "jpeg", name)
	_, full, partial := alphaCounts(got)
	assert.Zero(t, partial)
	assert.Equal(t, 128*128, full)
	// Transparent background is composited over white.
	r, g, bl, _ := got.At(2, 2).RGBA()
	assert.Greater(t, r>>8, uint32(245))
	assert.Greater(t, g>>8, uint32(245))
	assert.Greater(t, bl>>8, uint32(245))
}

// pngColorType reads the colour type from the IHDR chunk, which always
// directly follows the 8-byte signature.
func pngColorType(b []byte) byte { return b[8+8+8+1] }

func TestEncodePNGAlphaChannel(t *testing.T) {
	tests := []struct {
		name string
		img  image.Image
		want byte
	}{
		{"opaque NRGBA is RGB", Render(Scene{Prompt: "p", Width: 32, Height: 32, Preview: -1}), 2},
		{"transparent NRGBA is RGBA", Render(Scene{Prompt: "p", Width: 32, Height: 32, Transparent: true, Preview: -1}), 6},
		{"YCbCr is 8-bit RGB", image.NewYCbCr(image.Rect(0, 0, 16, 16), image.YCbCrSubsampleRatio420), 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := Encode(tt.img, "png", nil)
			require.NoError(t, err)
			require.Equal(t, "IHDR", string(b[12:16]))
			assert.Equal(t, tt.want, pngColorType(b))
			assert.Equal(t, byte(8), b[24], "bit depth")
			assert.Equal(t, uint32(tt.img.Bounds().Dx()), binary.BigEndian.Uint32(b[16:20]))
		})
	}
}

func TestEncodeJPEGCompressionOrdersSize(t *testing.T) {
	img := Render(Scene{Prompt: "size", Width: 256, Height: 256, Preview: -1})
	small, err := Encode(img, "jpeg", ptr(0))
	require.NoError(t, err)
	large, err := Encode(img, "jpeg", ptr(100))
	require.NoError(t, err)
	def, err := Encode(img, "jpeg", nil)
	require.NoError(t, err)
	assert.Less(t, len(small), len(large))
	assert.Equal(t, large, def, "nil means 100")
}

func TestEncodeRejects(t *testing.T) {
	img := Render(Scene{Prompt: "x", Width: 8, Height: 8, Preview: -1})
	tests := []struct {
		name        string
		img         image.Image
		format      string
		compression *int
	}{
		{"unknown format", img, "gif", nil},
		{"jpg alias", img, "jpg", nil},
		{"upper case", img, "PNG", nil},
		{"empty format", img, "", nil},
		{"compression high", img, "jpeg", ptr(101)},
		{"compression negative", img, "webp", ptr(-1)},
		{"nil image", nil, "png", nil},
		{"empty image", image.NewNRGBA(image.Rect(0, 0, 0, 0)), "png", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Encode(tt.img, tt.format, tt.compression)
			assert.Error(t, err)
		})
	}
	_, err := Encode(img, "gif", nil)
	assert.ErrorIs(t, err, ErrUnknownFormat)
}

func TestDecodeRejects(t *testing.T) {
	tests := []struct {
		name string
		b    []byte
	}{
		{"empty", nil},
		{"text", []byte("hello world, not an image")},
		{"gif", []byte("GIF89a\x01\x00\x01\x00")},
		{"truncated png", []byte("\x89PNG\r\n\x1a\n\x00\x00")},
		{"truncated webp", []byte("RIFF\x10\x00\x00\x00WEBPVP8 ")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Decode(tt.b)
			assert.Error(t, err)
		})
	}
}

func TestRenderEditFromDecodedImages(t *testing.T) {
	// References and masks reach Render as decoded images of whatever type
	// the decoder produced; every format must still drive the edit.
	const w, h = 128, 96
	ref := Render(Scene{Prompt: "ref", Seed: 4, Width: w, Height: h, Preview: -1})
	for _, f := range []struct {
		format string
		c      *int
	}{{"png", nil}, {"jpeg", ptr(90)}, {"webp", nil}, {"webp", ptr(80)}} {
		b, err := Encode(ref, f.format, f.c)
		require.NoError(t, err)
		dec, _, err := Decode(b)
		require.NoError(t, err)
		img := Render(Scene{Prompt: "edit", Width: w, Height: h, References: []image.Image{dec}, Preview: -1})
		assert.Greater(t, correlation(img, ref), 0.5, f.format)
	}
}

// TestResampleMatchesAt checks every fast path of the pixel reader against
// the image's own At, including sub-images with a non-zero origin, because
// references and masks arrive as whatever type the decoder produced.
func TestResampleMatchesAt(t *testing.T) {
	const w, h = 37, 23
	src := Render(Scene{Prompt: "types", Width: w, Height: h, Transparent: true, Preview: -1})
	// Give the rim and background some variety of alpha and colour.
	for i := 3; i < len(src.Pix); i += 28 {
		src.Pix[i] = uint8(i)
	}
	rgba := image.NewRGBA(src.Rect)
	gray := image.NewGray(src.Rect)
	pal := image.NewPaletted(src.Rect, color.Palette{color.NRGBA{255, 0, 0, 255}, color.NRGBA{0, 0, 255, 128}, color.Transparent})
	y420 := image.NewYCbCr(src.Rect, image.YCbCrSubsampleRatio420)
	y444 := image.NewYCbCr(src.Rect, image.YCbCrSubsampleRatio444)
	nya := image.NewNYCbCrA(src.Rect, image.YCbCrSubsampleRatio420)
	rgba64 := image.NewRGBA64(src.Rect)
	for y := range h {
		for x := range w {
			c := src.NRGBAAt(x, y)
			rgba.Set(x, y, c)
			gray.Set(x, y, c)
			pal.Set(x, y, c)
			rgba64.Set(x, y, c)
			yy, cb, cr := color.RGBToYCbCr(c.R, c.G, c.B)
			y420.Y[y420.YOffset(x, y)], y420.Cb[y420.COffset(x, y)], y420.Cr[y420.COffset(x, y)] = yy, cb, cr
			y444.Y[y444.YOffset(x, y)], y444.Cb[y444.COffset(x, y)], y444.Cr[y444.COffset(x, y)] = yy, cb, cr
			nya.Y[nya.YOffset(x, y)], nya.Cb[nya.COffset(x, y)], nya.Cr[nya.COffset(x, y)] = yy, cb, cr
			nya.A[nya.AOffset(x, y)] = c.A
		}
	}
	sub := image.Rect(5, 3, 30, 20)
	tests := []struct {
		name      string
		img       image.Image
		tolerance uint8
	}{
		{"NRGBA", src, 0}, {"RGBA", rgba, 0}, {"Gray", gray, 0}, {"Paletted", pal, 0},
		{"YCbCr420", y420, 0}, {"YCbCr444", y444, 0}, {"NYCbCrA", nya, 1}, {"RGBA64 (generic)", rgba64, 0},
		{"NRGBA sub", src.SubImage(sub), 0}, {"RGBA sub", rgba.SubImage(sub), 0}, {"Gray sub", gray.SubImage(sub), 0},
		{"Paletted sub", pal.SubImage(sub), 0}, {"YCbCr420 sub", y420.SubImage(sub), 0}, {"NYCbCrA sub", nya.SubImage(sub), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.img.Bounds()
			for _, size := range []image.Point{b.Size(), {b.Dx() * 2, b.Dy() * 3}, {b.Dx()/2 + 1, b.Dy()/3 + 1}} {
				got := resample(tt.img, size.X, size.Y)
				for y := range size.Y {
					for x := range size.X {
						sx := b.Min.X + (2*x+1)*b.Dx()/(2*size.X)
						sy := b.Min.Y + (2*y+1)*b.Dy()/(2*size.Y)
						want := color.NRGBAModel.Convert(tt.img.At(sx, sy)).(color.NRGBA)
						// At-based conversion of NYCbCrA goes through
						// premultiplied colour and may round one step off.
						if g := got.NRGBAAt(x, y); !nearColor(g, want, tt.tolerance) {
							require.Failf(t, "pixel mismatch", "size %v (%d,%d)←(%d,%d): got %v want %v", size, x, y, sx, sy, g, want)
						}
					}
				}
			}
		})
	}
}

// TestEncodeWebPContainer checks which codec each webp path used: the
// lossless path must be VP8L and the lossy path VP8 with a separate ALPH
// chunk when the image has transparency.
func TestEncodeWebPContainer(t *testing.T) {
	opaque := Render(Scene{Prompt: "w", Width: 64, Height: 64, Preview: -1})
	transparent := Render(Scene{Prompt: "w", Width: 64, Height: 64, Transparent: true, Preview: -1})
	tests := []struct {
		name        string
		img         image.Image
		compression *int
		contains    []string
		absent      []string
	}{
		{"lossless nil", transparent, nil, []string{"VP8L"}, []string{"VP8 "}},
		{"lossless 100", opaque, ptr(100), []string{"VP8L"}, []string{"VP8 "}},
		{"lossy alpha", transparent, ptr(50), []string{"VP8X", "ALPH", "VP8 "}, []string{"VP8L"}},
		{"lossy opaque", opaque, ptr(99), []string{"VP8 "}, []string{"VP8L", "ALPH"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := Encode(tt.img, "webp", tt.compression)
			require.NoError(t, err)
			for _, c := range tt.contains {
				assert.Contains(t, string(b), c)
			}
			for _, c := range tt.absent {
				assert.NotContains(t, string(b), c)
			}
		})
	}
}

// TestConcurrentUse runs renders and encodes in parallel, as the gateway's
// handlers do; under -race it checks the shared PNG encoder pool.
func TestConcurrentUse(t *testing.T) {
	want := map[string][]byte{}
	img := Render(Scene{Prompt: "c", Width: 96, Height: 64, Transparent: true, Preview: -1})
	for _, f := range []string{"png", "jpeg", "webp"} {
		b, err := Encode(img, f, nil)
		require.NoError(t, err)
		want[f] = b
	}
	for i := range 8 {
		f := []string{"png", "jpeg", "webp"}[i%3]
		t.Run(fmt.Sprint(f, i), func(t *testing.T) {
			t.Parallel()
			got := Render(Scene{Prompt: "c", Width: 96, Height: 64, Transparent: true, Preview: -1})
			b, err := Encode(got, f, nil)
			require.NoError(t, err)
			assert.Equal(t, want[f], b, "encoders are deterministic")
		})
	}
}

func nearColor(a, b color.NRGBA, tol uint8) bool {
	d := func(x, y uint8) uint8 { return max(x, y) - min(x, y) }
	return d(a.R, b.R) <= tol && d(a.G, b.G) <= tol && d(a.B, b.B) <= tol && a.A == b.A
}

// Concurrent first lossy WebP encodes: the encoder library fills its tables
// lazily; without the warm-up the race detector (make test runs this
// package under -race) reports the concurrent first use.
func TestLossyWebPConcurrentEncodes(t *testing.T) {
	img := image.NewNRGBA(image.Rect(0, 0, 64, 64))
	c := 50
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, err := Encode(img, FormatWebP, &c)
			assert.NoError(t, err)
			assert.NotEmpty(t, b)
		}()
	}
	wg.Wait()
}
