package core

import "testing"

func TestCSVCell(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"D1", "D1"},
		{"=1+2", "'=1+2"},
		{"+33 6 12 34 56 78", "'+33 6 12 34 56 78"},
		{"-2+3+cmd|' /C calc'!A0", "'-2+3+cmd|' /C calc'!A0"},
		{"@SUM(A1:A9)", "'@SUM(A1:A9)"},
		{"\t=1+2", "'\t=1+2"},
		{"\r=1+2", "'\r=1+2"},
		{"a=b", "a=b"},
		{" =1+2", " =1+2"},
		{"'=1+2", "'=1+2"},
		{"é=1", "é=1"},
		{"1645.00", "1645.00"},
	} {
		if got := CSVCell(c.in); got != c.want {
			t.Errorf("CSVCell(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
