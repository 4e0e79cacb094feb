// gogzip: for each line of hex on stdin, one line of hex on stdout: the bytes Go's gzip writer makes of it at
// BestCompression after one Write, Flush and Close, as external-dns compresses an ownership TXT before it
// encrypts it. Built and driven by tests/endpoint/test_goflate.py.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/hex"
	"os"
)

func compress(data []byte) []byte {
	var b bytes.Buffer
	w, err := gzip.NewWriterLevel(&b, gzip.BestCompression)
	if err != nil {
		panic(err)
	}
	if _, err = w.Write(data); err != nil {
		panic(err)
	}
	if err = w.Flush(); err != nil {
		panic(err)
	}
	if err = w.Close(); err != nil {
		panic(err)
	}
	return b.Bytes()
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<26)
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		data, err := hex.DecodeString(in.Text())
		if err != nil {
			panic(err)
		}
		out.WriteString(hex.EncodeToString(compress(data)) + "\n")
		if err = out.Flush(); err != nil {
			panic(err)
		}
	}
}
