//go:build !linux

package snapshot

import "os"

// mapFileBuffer: elsewhere than on Linux a snapshot file is read into the
// heap.
func mapFileBuffer(int) *fileBuffer { return nil }

func mapFile(*os.File, int) *fileBuffer { return nil }

func (b *fileBuffer) release(from, to int) {}

func (b *fileBuffer) free() {}
