"""The kit's own pages: the guide that opens each PDF, tuck boxes."""
