package imagery

import (
	"fmt"
	"image"
	"testing"
)

// benchSizes are the sizes the gateway actually produces: the verified
// square and landscape sizes and the size returned when size is omitted.
var benchSizes = []image.Point{{1024, 1024}, {1536, 1024}, {1254, 1254}}

func sizeName(p image.Point) string { return fmt.Sprintf("%dx%d", p.X, p.Y) }

func BenchmarkRender(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(sizeName(sz), func(b *testing.B) {
			b.SetBytes(int64(4 * sz.X * sz.Y))
			for b.Loop() {
				Render(Scene{Prompt: "benchmark", Seed: 1, Width: sz.X, Height: sz.Y, Preview: -1})
			}
		})
	}
	ref := Render(Scene{Prompt: "reference", Width: 1024, Height: 1024, Preview: -1})
	variants := []struct {
		name string
		s    Scene
	}{
		{"transparent/1024x1024", Scene{Prompt: "b", Width: 1024, Height: 1024, Transparent: true, Preview: -1}},
		{"edit/1024x1024", Scene{Prompt: "b", Width: 1024, Height: 1024, References: []image.Image{ref}, Preview: -1}},
		{"edit-mask/1024x1024", Scene{Prompt: "b", Width: 1024, Height: 1024, References: []image.Image{ref, ref}, Mask: ref, Preview: -1}},
		{"preview0/1024x1024", Scene{Prompt: "b", Width: 1024, Height: 1024, Preview: 0}},
	}
	for _, v := range variants {
		b.Run(v.name, func(b *testing.B) {
			for b.Loop() {
				Render(v.s)
			}
		})
	}
}

func BenchmarkEncode(b *testing.B) {
	formats := []struct {
		name        string
		format      string
		compression *int
	}{
		{"png", "png", nil},
		{"jpeg/100", "jpeg", ptr(100)},
		{"jpeg/0", "jpeg", ptr(0)},
		{"webp-lossless", "webp", nil},
		{"webp-lossy/50", "webp", ptr(50)},
	}
	for _, f := range formats {
		for _, sz := range benchSizes {
			for _, transparent := range []bool{false, true} {
				name := f.name + "/" + sizeName(sz)
				if transparent {
					name += "/transparent"
				}
				img := Render(Scene{Prompt: "benchmark", Seed: 1, Width: sz.X, Height: sz.Y, Transparent: transparent, Preview: -1})
				b.Run(name, func(b *testing.B) {
					var out []byte
					for b.Loop() {
						var err error
						out, err = Encode(img, f.format, f.compression)
						if err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(len(out)), "bytes/img")
				})
			}
		}
	}
}
