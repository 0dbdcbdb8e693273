"""The site-sweep experiment and tapesched sweep."""
