package imagecheck

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"hash/crc32"
	"image"
	"image/color"
	"image/draw"
	"image/gif"
	"image/jpeg"
	"image/png"
	"runtime"
	"strings"
	"testing"

	"github.com/HugoSmits86/nativewebp"
	lossywebp "github.com/deepteams/webp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// --- test images, encoded here so no binary test data needs trusting ---

// picture is a w x h image: a flat background with a filled rectangle, and
// optionally one semi-transparent and one fully transparent region.
func picture(w, h int, semi, clear bool) *image.NRGBA {
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := color.NRGBA{R: 30, G: 90, B: 200, A: 255}
			if x > w/4 && x < w/2 && y > h/4 && y < h/2 {
				c = color.NRGBA{R: 240, G: 200, B: 20, A: 255}
			}
			if semi && x >= w/2 && y >= h/2 {
				c.A = 128
			}
			if clear && x < w/8 && y < h/8 {
				c.A = 0
			}
			m.SetNRGBA(x, y, c)
		}
	}
	return m
}

func encPNG(t testing.TB, m image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, m))
	return b.Bytes()
}

func encJPEG(t testing.TB, m image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, jpeg.Encode(&b, m, &jpeg.Options{Quality: 80}))
	return b.Bytes()
}

func encWebPLossless(t testing.TB, m image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, nativewebp.Encode(&b, m, nil))
	return b.Bytes()
}

func encWebPLossy(t testing.TB, m image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, lossywebp.Encode(&b, m, lossywebp.DefaultOptions()))
	return b.Bytes()
}

func encGIF(t testing.TB, m image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, gif.Encode(&b, m, nil))
	return b.Bytes()
}

// pngChunk frames a PNG chunk with a correct CRC, so hostile headers get
// past the CRC check and reach the size check.
func pngChunk(typ string, data []byte) []byte {
	var b bytes.Buffer
	_ = binary.Write(&b, binary.BigEndian, uint32(len(data)))
	b.WriteString(typ)
	b.Write(data)
	crc := crc32.NewIEEE()
	crc.Write([]byte(typ))
	crc.Write(data)
	_ = binary.Write(&b, binary.BigEndian, crc.Sum32())
	return b.Bytes()
}

func hugePNG(w, h uint32) []byte {
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 6 // 8-bit RGBA
	b := []byte("\x89PNG\r\n\x1a\n")
	b = append(b, pngChunk("IHDR", ihdr)...)
	b = append(b, pngChunk("IDAT", []byte{0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01})...)
	return append(b, pngChunk("IEND", nil)...)
}

func hugeJPEG(w, h uint16, jfif bool) []byte {
	b := []byte{0xFF, 0xD8}
	if jfif { // with an APP0 JFIF segment the header ends at SOF
		b = append(b, 0xFF, 0xE0, 0x00, 0x10, 'J', 'F', 'I', 'F', 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00)
	}
	// SOF0: length 11, precision 8, height, width, 1 component.
	b = append(b, 0xFF, 0xC0, 0x00, 0x0B, 0x08, byte(h>>8), byte(h), byte(w>>8), byte(w), 0x01, 0x01, 0x11, 0x00)
	// SOS header: without JFIF the header is read up to here.
	b = append(b, 0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3F, 0x00)
	return append(b, 0xFF, 0xD9)
}

func hugeWebP(w, h uint32) []byte {
	// VP8L: signature 0x2f, then 14-bit width-1, 14-bit height-1, alpha, version.
	bits := (w - 1) | (h-1)<<14
	payload := []byte{0x2f, byte(bits), byte(bits >> 8), byte(bits >> 16), byte(bits >> 24), 0, 0, 0}
	var b bytes.Buffer
	b.WriteString("RIFF")
	_ = binary.Write(&b, binary.LittleEndian, uint32(4+8+len(payload)))
	b.WriteString("WEBPVP8L")
	_ = binary.Write(&b, binary.LittleEndian, uint32(len(payload)))
	b.Write(payload)
	return b.Bytes()
}

func hugeGIF(w, h uint16) []byte {
	b := []byte("GIF89a")
	b = append(b, byte(w), byte(w>>8), byte(h), byte(h>>8), 0x00, 0x00, 0x00)
	b = append(b, 0x2C, 0, 0, 0, 0, byte(w), byte(w>>8), byte(h), byte(h>>8), 0x00)
	return append(b, 0x02, 0x02, 0x44, 0x01, 0x00, 0x3B)
}

// --- tests ---

func TestSniff(t *testing.T) {
	small := picture(8, 8, false, false)
	tests := []struct {
		name string
		b    []byte
		want string
	}{
		{"png", encPNG(t, small), PNG},
		{"jpeg", encJPEG(t, small), JPEG},
		{"webp lossless", encWebPLossless(t, small), WebP},
		{"webp lossy", encWebPLossy(t, small), WebP},
		{"gif87", []byte("GIF87a...."), GIF},
		{"gif89", encGIF(t, small), GIF},
		{"empty", nil, Unknown},
		{"text", []byte("hello, this is not an image"), Unknown},
		{"png magic cut", []byte("\x89PNG\r\n"), Unknown},
		{"riff not webp", []byte("RIFF\x00\x00\x00\x00WAVEfmt "), Unknown},
		{"riff short", []byte("RIFF\x00\x00\x00\x00WEB"), Unknown},
		{"jpeg two bytes", []byte{0xFF, 0xD8}, Unknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Sniff(tt.b))
		})
	}
}

func TestDecodeBase64(t *testing.T) {
	raw := []byte{0xfb, 0xff, 0xbf, 0x00, 0x01}
	std := base64.StdEncoding.EncodeToString(raw) // "+/+/AAE="
	tests := []struct {
		name, in string
		want     []byte
		err      string
	}{
		{"plain", std, raw, ""},
		{"surrounding whitespace", " \n\t" + std + "\r\n ", raw, ""},
		{"empty", "", nil, "empty"},
		{"blank", " \n ", nil, "empty"},
		{"data url", "data:image/png;base64," + std, nil, "data: URL"},
		{"url-safe alphabet", base64.URLEncoding.EncodeToString(raw), nil, "URL-safe"},
		{"no padding", base64.RawStdEncoding.EncodeToString(raw), nil, "offset"},
		{"inner newline", std[:4] + "\n" + std[4:], nil, "whitespace inside"},
		{"inner space", std[:4] + " " + std[4:], nil, "whitespace inside"},
		{"garbage", "not*base64!", nil, "invalid input"},
		{"non-zero padding bits", "AB==", nil, "invalid input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeBase64(tt.in)
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestInspect(t *testing.T) {
	opaque := picture(48, 32, false, false)
	semi := picture(48, 32, true, false)
	clear := picture(48, 32, false, true)
	both := picture(48, 32, true, true)

	gray := image.NewGray(image.Rect(0, 0, 10, 6))
	deep := image.NewNRGBA64(image.Rect(0, 0, 10, 6))
	for i := range deep.Pix {
		deep.Pix[i] = 0xFF
	}
	deepSemi := image.NewNRGBA64(image.Rect(0, 0, 10, 6))
	for i := range deepSemi.Pix {
		deepSemi.Pix[i] = 0xFF
	}
	deepSemi.Pix[6], deepSemi.Pix[7] = 0xFF, 0xFE // alpha 65534: not opaque

	palOpaque := image.NewPaletted(image.Rect(0, 0, 16, 16), color.Palette{color.NRGBA{1, 2, 3, 255}, color.NRGBA{0, 0, 0, 0}})
	palUsed := image.NewPaletted(image.Rect(0, 0, 16, 16), color.Palette{color.NRGBA{1, 2, 3, 255}, color.NRGBA{0, 0, 0, 0}})
	palUsed.SetColorIndex(3, 3, 1)

	tests := []struct {
		name               string
		b                  []byte
		format             string
		w, h               int
		alpha, transparent bool
	}{
		{"png opaque", encPNG(t, opaque), PNG, 48, 32, false, false},
		{"png semi", encPNG(t, semi), PNG, 48, 32, true, false},
		{"png transparent", encPNG(t, clear), PNG, 48, 32, true, true},
		{"png both", encPNG(t, both), PNG, 48, 32, true, true},
		{"png gray", encPNG(t, gray), PNG, 10, 6, false, false},
		{"png 16-bit opaque", encPNG(t, deep), PNG, 10, 6, false, false},
		{"png 16-bit semi", encPNG(t, deepSemi), PNG, 10, 6, true, false},
		{"png palette, transparent entry unused", encPNG(t, palOpaque), PNG, 16, 16, false, false},
		{"png palette, transparent entry used", encPNG(t, palUsed), PNG, 16, 16, true, true},
		{"jpeg", encJPEG(t, both), JPEG, 48, 32, false, false},
		{"webp lossless opaque", encWebPLossless(t, opaque), WebP, 48, 32, false, false},
		{"webp lossless alpha", encWebPLossless(t, both), WebP, 48, 32, true, true},
		{"webp lossy opaque", encWebPLossy(t, opaque), WebP, 48, 32, false, false},
		{"webp lossy alpha", encWebPLossy(t, clear), WebP, 48, 32, true, true},
		{"gif", encGIF(t, opaque), GIF, 48, 32, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			info, img, err := Inspect(tt.b)
			require.NoError(t, err)
			require.NotNil(t, img)
			sum := sha256.Sum256(tt.b)
			assert.Equal(t, Info{
				Format: tt.format, Decoded: tt.format,
				Width: tt.w, Height: tt.h,
				Alpha: tt.alpha, Transparent: tt.transparent,
				SHA256: hex.EncodeToString(sum[:]), Bytes: len(tt.b),
			}, info)
		})
	}
}

func TestInspectBad(t *testing.T) {
	pic := picture(64, 64, true, true)
	pngB, jpgB, webpB := encPNG(t, pic), encJPEG(t, pic), encWebPLossless(t, pic)
	gifB := encGIF(t, pic)
	swap := func(b []byte, i int, v byte) []byte {
		c := bytes.Clone(b)
		c[i] = v
		return c
	}
	tests := []struct {
		name   string
		b      []byte
		format string
		w, h   int // header size if the header was read
		err    string
	}{
		{"empty", nil, Unknown, 0, 0, "empty"},
		{"text", []byte("this is not an image\n"), Unknown, 0, 0, "unknown format"},
		{"wrong magic", swap(pngB, 1, 'X'), Unknown, 0, 0, "unknown format"},
		{"png magic, jpeg body", append([]byte("\x89PNG\r\n\x1a\n"), jpgB...), PNG, 0, 0, "png header"},
		{"jpeg magic, png body", append([]byte{0xFF, 0xD8, 0xFF}, pngB...), JPEG, 0, 0, "jpeg"},
		{"png truncated in header", pngB[:20], PNG, 0, 0, "png header"},
		{"png truncated in data", pngB[:len(pngB)/2], PNG, 64, 64, "png decode"},
		{"png bad IDAT crc", swap(pngB, len(pngB)-20, pngB[len(pngB)-20]^0xFF), PNG, 64, 64, "png decode"},
		{"jpeg truncated", jpgB[:len(jpgB)*3/4], JPEG, 64, 64, "jpeg decode"},
		{"webp truncated", webpB[:len(webpB)/2], WebP, 64, 64, "webp decode"},
		{"webp header only", webpB[:12], WebP, 0, 0, "webp header"},
		{"gif truncated", gifB[:len(gifB)/2], GIF, 64, 64, "gif decode"},
		{"png 100000x100000", hugePNG(100000, 100000), PNG, 100000, 100000, "cap"},
		{"png 2^31-1 square", hugePNG(1<<31-1, 1<<31-1), PNG, 0, 0, "png header"},
		{"png zero width", hugePNG(0, 10), PNG, 0, 0, "png header"},
		{"jpeg 65535x65535", hugeJPEG(65535, 65535, false), JPEG, 65535, 65535, "cap"},
		{"jpeg jfif 65535x65535", hugeJPEG(65535, 65535, true), JPEG, 65535, 65535, "cap"},
		{"jpeg zero height", hugeJPEG(100, 0, true), JPEG, 0, 0, "jpeg"},
		{"webp 16384x16384", hugeWebP(16384, 16384), WebP, 16384, 16384, "cap"},
		{"gif 65535x65535", hugeGIF(65535, 65535), GIF, 65535, 65535, "cap"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			info, img, err := Inspect(tt.b)
			runtime.ReadMemStats(&after)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.err)
			assert.Nil(t, img)
			assert.Equal(t, tt.format, info.Format)
			assert.Empty(t, info.Decoded)
			assert.Equal(t, len(tt.b), info.Bytes)
			assert.Len(t, info.SHA256, 64)
			if tt.w != 0 {
				assert.Equal(t, tt.w, info.Width)
				assert.Equal(t, tt.h, info.Height)
			}
			// Hostile headers must be refused before any pixel buffer exists.
			assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(8<<20), "allocated too much")
		})
	}
}

func TestInspectCap(t *testing.T) {
	b := encPNG(t, picture(100, 50, false, false))
	_, _, err := inspect(b, 100*50)
	assert.NoError(t, err, "exactly at the cap is allowed")
	info, img, err := inspect(b, 100*50-1)
	assert.ErrorContains(t, err, "100x50 exceeds the 4999-pixel cap")
	assert.Nil(t, img)
	assert.Equal(t, 100, info.Width)
}

func TestScanAlpha(t *testing.T) {
	nrgba := picture(20, 20, false, true) // transparent only in the top-left corner
	sub := nrgba.SubImage(image.Rect(10, 10, 20, 20))
	rgba := image.NewRGBA(image.Rect(0, 0, 4, 4))
	for i := range rgba.Pix {
		rgba.Pix[i] = 0xFF
	}
	rgbaSemi := image.NewRGBA(image.Rect(0, 0, 4, 4))
	copy(rgbaSemi.Pix, rgba.Pix)
	rgbaSemi.Pix[4*5+3] = 0x80
	ycc := image.NewYCbCr(image.Rect(0, 0, 4, 4), image.YCbCrSubsampleRatio420)
	nycca := image.NewNYCbCrA(image.Rect(0, 0, 4, 4), image.YCbCrSubsampleRatio420)
	for i := range nycca.A {
		nycca.A[i] = 0xFF
	}
	nyccaClear := image.NewNYCbCrA(image.Rect(0, 0, 4, 4), image.YCbCrSubsampleRatio444)
	alphaOnly := image.NewAlpha(image.Rect(0, 0, 3, 3)) // all zero
	a16 := image.NewAlpha16(image.Rect(0, 0, 3, 3))
	for i := range a16.Pix {
		a16.Pix[i] = 0xFF
	}
	rgba64 := image.NewRGBA64(image.Rect(0, 0, 2, 2))
	cmyk := image.NewCMYK(image.Rect(0, 0, 2, 2))
	palOutOfRange := image.NewPaletted(image.Rect(0, 0, 2, 2), color.Palette{color.NRGBA{0, 0, 0, 0}})
	palOutOfRange.Pix = []byte{5, 5, 5, 5}
	generic := &genericImage{image.Rect(0, 0, 3, 3), color.NRGBA{0, 0, 0, 10}}

	tests := []struct {
		name               string
		img                image.Image
		alpha, transparent bool
	}{
		{"nrgba", nrgba, true, true},
		{"nrgba subimage excludes the transparent corner", sub, false, false},
		{"rgba opaque", rgba, false, false},
		{"rgba semi", rgbaSemi, true, false},
		{"ycbcr", ycc, false, false},
		{"nycbcra opaque", nycca, false, false},
		{"nycbcra clear", nyccaClear, true, true},
		{"alpha", alphaOnly, true, true},
		{"alpha16 opaque", a16, false, false},
		{"rgba64 zero", rgba64, true, true},
		{"cmyk", cmyk, false, false},
		{"paletted index past palette", palOutOfRange, false, false},
		{"generic opaque uniform", image.NewUniform(color.Black), false, false},
		{"generic bounded", generic, true, false},
		{"empty", image.NewNRGBA(image.Rect(0, 0, 0, 0)), false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, tr := scanAlpha(tt.img)
			assert.Equal(t, tt.alpha, a, "alpha")
			assert.Equal(t, tt.transparent, tr, "transparent")
		})
	}
}

// genericImage is a type scanAlpha has no fast path for.
type genericImage struct {
	r image.Rectangle
	c color.Color
}

func (g *genericImage) ColorModel() color.Model { return color.NRGBAModel }
func (g *genericImage) Bounds() image.Rectangle { return g.r }
func (g *genericImage) At(x, y int) color.Color { return g.c }

func TestThumbnail(t *testing.T) {
	const prefix = "data:image/png;base64,"
	decode := func(t *testing.T, s string) Info {
		t.Helper()
		require.True(t, strings.HasPrefix(s, prefix), s)
		b, err := DecodeBase64(strings.TrimPrefix(s, prefix))
		require.NoError(t, err)
		info, _, err := Inspect(b)
		require.NoError(t, err)
		return info
	}
	tests := []struct {
		name  string
		img   image.Image
		max   int
		w, h  int
		alpha bool
	}{
		{"landscape with alpha", picture(1536, 1024, true, true), 128, 128, 85, true},
		{"portrait opaque", picture(1024, 1536, false, false), 96, 64, 96, false},
		{"small is not enlarged", picture(40, 30, false, true), 128, 40, 30, true},
		{"default max side", picture(512, 512, false, false), 0, 128, 128, false},
		{"very thin keeps one pixel", picture(2000, 3, false, false), 100, 100, 1, false},
		{"offset bounds", picture(300, 300, false, true).SubImage(image.Rect(0, 0, 200, 100)), 50, 50, 25, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			info := decode(t, Thumbnail(tt.img, tt.max))
			assert.Equal(t, PNG, info.Format)
			assert.Equal(t, tt.w, info.Width)
			assert.Equal(t, tt.h, info.Height)
			assert.Equal(t, tt.alpha, info.Alpha)
		})
	}
	assert.Empty(t, Thumbnail(nil, 10))
	assert.Empty(t, Thumbnail(image.NewNRGBA(image.Rect(0, 0, 0, 5)), 10))
}

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		w, h int
		err  bool
	}{
		{"1024x1024", 1024, 1024, false},
		{"1536x1024", 1536, 1024, false},
		{"1024x1536", 1024, 1536, false},
		{"1254x1254", 1254, 1254, false},
		{"1x1", 1, 1, false},
		{"auto", 0, 0, true},
		{"", 0, 0, true},
		{"1024", 0, 0, true},
		{"1024X1024", 0, 0, true},
		{"1024x", 0, 0, true},
		{"x1024", 0, 0, true},
		{"0x10", 0, 0, true},
		{"010x10", 0, 0, true},
		{"-1x10", 0, 0, true},
		{"+1x10", 0, 0, true},
		{" 1024x1024", 0, 0, true},
		{"1024 x 1024", 0, 0, true},
		{"1024x1024x3", 0, 0, true},
		{"1.5x2", 0, 0, true},
		{"99999999999x1", 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			w, h, err := ParseSize(tt.in)
			if tt.err {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, [2]int{tt.w, tt.h}, [2]int{w, h})
		})
	}
}

func TestConcurrentInspect(t *testing.T) {
	b := encWebPLossless(t, picture(64, 64, true, true))
	done := make(chan Info, 16)
	for range 16 {
		go func() {
			info, _, _ := Inspect(b)
			done <- info
		}()
	}
	first := <-done
	for range 15 {
		assert.Equal(t, first, <-done)
	}
}

func BenchmarkScanAlphaNRGBA1536x1024(b *testing.B) {
	m := picture(1536, 1024, false, false) // opaque: the worst case, every pixel is read
	b.ResetTimer()
	for b.Loop() {
		scanAlpha(m)
	}
}

func BenchmarkInspectPNG1024(b *testing.B) {
	data := encPNG(b, picture(1024, 1024, true, false))
	b.ResetTimer()
	for b.Loop() {
		if _, _, err := Inspect(data); err != nil {
			b.Fatal(err)
		}
	}
}

func TestTransparentShare(t *testing.T) {
	half := func(img interface {
		image.Image
		Set(x, y int, c color.Color)
	}) image.Image {
		b := img.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				a := uint8(255)
				if x < b.Dx()/2 {
					a = 0
				}
				img.Set(x, y, color.NRGBA{R: 200, A: a})
			}
		}
		return img
	}
	speck := image.NewNRGBA(image.Rect(0, 0, 10, 10))
	draw.Draw(speck, speck.Bounds(), image.NewUniform(color.NRGBA{R: 9, A: 255}), image.Point{}, draw.Src)
	speck.SetNRGBA(0, 0, color.NRGBA{A: 254})
	tests := []struct {
		name  string
		img   image.Image
		below uint8
		want  float64
	}{
		{"NRGBA half transparent", half(image.NewNRGBA(image.Rect(0, 0, 8, 4))), 128, 0.5},
		{"RGBA half transparent", half(image.NewRGBA(image.Rect(0, 0, 8, 4))), 128, 0.5},
		{"NRGBA64 (the generic path)", half(image.NewNRGBA64(image.Rect(0, 0, 8, 4))), 128, 0.5},
		{"a sub-image keeps its own bounds", half(image.NewNRGBA(image.Rect(0, 0, 8, 4))).(*image.NRGBA).SubImage(image.Rect(0, 0, 4, 4)), 128, 1},
		{"one pixel at 254 is no region", speck, 128, 0},
		{"one pixel at 254 counts below 255", speck, 255, 0.01},
		{"JPEG-like YCbCr has none", image.NewYCbCr(image.Rect(0, 0, 4, 4), image.YCbCrSubsampleRatio420), 255, 0},
		{"empty", image.NewNRGBA(image.Rect(0, 0, 0, 0)), 128, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.InDelta(t, tt.want, TransparentShare(tt.img, tt.below), 1e-9)
		})
	}
}
