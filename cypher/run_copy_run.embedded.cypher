COPY Run FROM $rows
