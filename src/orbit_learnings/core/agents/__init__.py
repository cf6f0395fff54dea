"""What orbit knows of the coding agents themselves: their file tools and their transcripts."""
