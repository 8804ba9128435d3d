package imagecheck

import "image"

// scanAlpha reports whether any pixel is not fully opaque (alpha) and
// whether any is fully transparent (transparent). The concrete types the
// decoders return are scanned on their raw buffers: going through At() and
// color.Color for a 1536x1024 image costs an interface call and an
// allocation per pixel. It stops as soon as both answers are known.
func scanAlpha(img image.Image) (alpha, transparent bool) {
	r := img.Bounds()
	if r.Empty() || noAlpha(img) {
		return false, false
	}
	if p, ok := alpha8(img); ok {
		return scan8(p, r.Dx(), r.Dy())
	}
	switch m := img.(type) {
	case *image.NRGBA64:
		return scan16(m.Pix, m.Stride, m.PixOffset(r.Min.X, r.Min.Y), r.Dx(), r.Dy(), 8, 6)
	case *image.RGBA64:
		return scan16(m.Pix, m.Stride, m.PixOffset(r.Min.X, r.Min.Y), r.Dx(), r.Dy(), 8, 6)
	case *image.Alpha16:
		return scan16(m.Pix, m.Stride, m.PixOffset(r.Min.X, r.Min.Y), r.Dx(), r.Dy(), 2, 0)
	case *image.Paletted:
		return scanPaletted(m)
	}
	return scanGeneric(img)
}

// noAlpha is true for the decoders' types that have no alpha channel.
func noAlpha(img image.Image) bool {
	switch img.(type) {
	case *image.YCbCr, *image.Gray, *image.Gray16, *image.CMYK:
		return true
	}
	return false
}

// plane8 locates the 8-bit alpha samples of an image in its raw buffer:
// the sample of each bpp-byte pixel is at byte aoff, rows stride apart
// from start.
type plane8 struct {
	pix                      []byte
	stride, start, bpp, aoff int
}

// row returns the bytes of row y (w pixels).
func (p plane8) row(y, w int) []byte {
	at := p.start + y*p.stride
	return p.pix[at : at+w*p.bpp]
}

// alpha8 finds the 8-bit alpha plane of the types that keep one.
func alpha8(img image.Image) (plane8, bool) {
	min := img.Bounds().Min
	switch m := img.(type) {
	case *image.NRGBA:
		return plane8{m.Pix, m.Stride, m.PixOffset(min.X, min.Y), 4, 3}, true
	case *image.RGBA:
		return plane8{m.Pix, m.Stride, m.PixOffset(min.X, min.Y), 4, 3}, true
	case *image.Alpha:
		return plane8{m.Pix, m.Stride, m.PixOffset(min.X, min.Y), 1, 0}, true
	case *image.NYCbCrA:
		return plane8{m.A, m.AStride, m.AOffset(min.X, min.Y), 1, 0}, true
	}
	return plane8{}, false
}

// scan8 walks the 8-bit alpha plane of a w×h image.
func scan8(p plane8, w, h int) (alpha, transparent bool) {
	for y := 0; y < h; y++ {
		row := p.row(y, w)
		for i := p.aoff; i < len(row); i += p.bpp {
			if a := row[i]; a != 0xFF {
				alpha = true
				if a == 0 {
					transparent = true
					return // transparent implies alpha: both known
				}
			}
		}
	}
	return
}

// scan16 is scan8 for big-endian 16-bit alpha samples.
func scan16(pix []byte, stride, start, w, h, bpp, aoff int) (alpha, transparent bool) {
	for y := 0; y < h; y++ {
		row := pix[start+y*stride : start+y*stride+w*bpp]
		for i := aoff; i+1 < len(row); i += bpp {
			hi, lo := row[i], row[i+1]
			if hi != 0xFF || lo != 0xFF {
				alpha = true
				if hi == 0 && lo == 0 {
					transparent = true
					return
				}
			}
		}
	}
	return
}

// scanPaletted looks at the palette entries actually used: a PNG may carry
// a transparent entry (tRNS) that no pixel refers to, which is not real
// transparency.
func scanPaletted(m *image.Paletted) (alpha, transparent bool) {
	var partial, clear [256]bool
	some := false
	for i, c := range m.Palette {
		if i >= 256 {
			break
		}
		if c == nil {
			continue
		}
		_, _, _, a := c.RGBA()
		partial[i] = a != 0xFFFF
		clear[i] = a == 0
		some = some || partial[i]
	}
	if !some {
		return false, false
	}
	r := m.Bounds()
	w := r.Dx()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		off := m.PixOffset(r.Min.X, y)
		for _, idx := range m.Pix[off : off+w] {
			// An index beyond the palette has no colour; the decoders that
			// produce one treat it as opaque black, and so do we (partial is
			// false for entries past the palette).
			if partial[idx] {
				alpha = true
				if clear[idx] {
					return true, true
				}
			}
		}
	}
	return
}

func scanGeneric(img image.Image) (alpha, transparent bool) {
	r := img.Bounds()
	if o, ok := img.(interface{ Opaque() bool }); ok && o.Opaque() {
		return false, false
	}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c := img.At(x, y)
			if c == nil {
				continue
			}
			_, _, _, a := c.RGBA()
			if a != 0xFFFF {
				alpha = true
				if a == 0 {
					return true, true
				}
			}
		}
	}
	return
}

// TransparentShare returns the share of pixels (0..1) whose alpha is below
// the 8-bit value below: how much of an image is a transparent region, so a
// case can demand real transparency ("5% of pixels below alpha 128") rather
// than one pixel at alpha 254.
func TransparentShare(img image.Image, below uint8) float64 {
	r := img.Bounds()
	total := r.Dx() * r.Dy()
	if total == 0 {
		return 0
	}
	if noAlpha(img) {
		return 0
	}
	n := 0
	if p, ok := alpha8(img); ok {
		n = countBelow8(p, r.Dx(), r.Dy(), below)
	} else {
		limit := uint32(below) * 0x101 // RGBA() alpha is 16-bit
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				if c := img.At(x, y); c != nil {
					if _, _, _, a := c.RGBA(); a < limit {
						n++
					}
				}
			}
		}
	}
	return float64(n) / float64(total)
}

// countBelow8 counts the samples of a w×h alpha plane below limit.
func countBelow8(p plane8, w, h int, limit uint8) int {
	n := 0
	for y := 0; y < h; y++ {
		row := p.row(y, w)
		for i := p.aoff; i < len(row); i += p.bpp {
			if row[i] < limit {
				n++
			}
		}
	}
	return n
}
